import type { ParsedResult } from './parsedResult';

/**
 * `[[…]]` in result.md: a heading that is exactly `[[Title]]` merges its
 * section into the card titled Title; anywhere else the brackets are dropped
 * with a warning (never a link).
 */

export const WIKILINK = /\[\[([^[\]\n]+)\]\]/g;

/** Drops `[[ ]]` from body text, counting them, with a warning: they are never links. */
export function stripLinks(text: string, line: number, parsed: ParsedResult): string {
  return text.replace(WIKILINK, (_all, title: string) => {
    parsed.wikilinks++;
    parsed.problems.push({
      line,
      severity: 'warning',
      code: 'WIKILINK_NOT_A_LINK',
      message: `[[${title}]] is not a link: only a heading that is exactly [[Title]] merges into that card; here it became plain text. Cross-reference with plain text or studybridge://note/<ID>.`,
    });
    return title;
  });
}

/** `## [[Target]]` → the card titled Target (first non-merging heading with that title, case-insensitive). */
export function resolveMerges(parsed: ParsedResult): void {
  const byTitle = new Map<string, number>();
  for (const c of parsed.cards)
    if (c.level > 0 && !c.mergeTitle && !byTitle.has(c.title.toLowerCase()))
      byTitle.set(c.title.toLowerCase(), c.index);
  for (const c of parsed.cards) {
    if (!c.mergeTitle) continue;
    const target = byTitle.get(c.mergeTitle.toLowerCase());
    let inside = false;
    for (let p = target; p !== undefined && p !== null; p = parsed.cards[p].parent ?? undefined)
      if (p === c.index) inside = true;
    if (target === undefined) {
      parsed.problems.push({
        line: c.line,
        severity: 'warning',
        code: 'MERGE_TARGET_MISSING',
        message: `No heading is titled "${c.mergeTitle}"; [[${c.mergeTitle}]] became a card of that title.`,
      });
      byTitle.set(c.mergeTitle.toLowerCase(), c.index);
      c.mergeTitle = undefined;
    } else if (inside) {
      parsed.problems.push({
        line: c.line,
        severity: 'warning',
        code: 'MERGE_INTO_OWN_BRANCH',
        message: `"${c.mergeTitle}" lies inside this section; it cannot merge into its own branch and stays a card.`,
      });
      c.mergeTitle = undefined;
    } else c.mergedInto = target;
  }
}
