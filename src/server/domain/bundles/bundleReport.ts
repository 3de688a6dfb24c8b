import type { ImportPlan, PlannedExcerpt } from './importPlan';
import type { Problem } from './parsedResult';

/** What check and submit report of an import plan: counts, failed and ambiguous excerpts, warning lines. */

export const MAX_FAILED_EXCERPTS = 50;

/** Excerpts that match on several pages (first 50, result.md order): where each went, or that none was chosen. */
function ambiguousOf(excerpts: readonly PlannedExcerpt[]) {
  return excerpts
    .filter((e) => e.alsoOn)
    .sort((a, b) => a.line - b.line)
    .slice(0, MAX_FAILED_EXCERPTS)
    .map((e) => ({
      noteid: e.noteid,
      line: e.line,
      excerpt: e.excerpt,
      page: e.anchored ? (e.page ?? null) : null,
      alsoOn: e.alsoOn!,
      ...(e.decidedBy ? { decidedBy: e.decidedBy } : {}),
    }));
}

export function stats(p: ImportPlan) {
  const ambiguous = ambiguousOf(p.excerpts);
  // In result.md order (the tree order puts merged sections first).
  const failed = p.excerpts.filter((e) => !e.anchored).sort((a, b) => a.line - b.line);
  return {
    headings: p.headings,
    importedCards: p.importedCards,
    wikilinks: p.wikilinks,
    excerptsTotal: p.excerpts.length,
    excerptsAnchored: p.excerpts.length - failed.length,
    failedExcerpts: failed.slice(0, MAX_FAILED_EXCERPTS).map((e) => ({
      noteid: e.noteid,
      excerpt: e.excerpt,
      reason: e.reason!,
      line: e.line,
      ...(e.score ? { score: e.score } : {}),
      ...(e.alsoOn ? { alsoOn: e.alsoOn } : {}),
    })),
    ...(ambiguous.length ? { ambiguousExcerpts: ambiguous } : {}),
  };
}

export const problemLines = (problems: Problem[]) => problems.map((p) => `line ${p.line}: ${p.message}`);

const pageList = (pages: number[]) =>
  pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.slice(0, -1).join(', ')} and ${pages[pages.length - 1]}`;

/** One warning line per excerpt that matches on several pages, naming its result.md line. */
export function ambiguityLines(p: ImportPlan): string[] {
  const lines = ambiguousOf(p.excerpts).map((e) => {
    const quote = `"${e.excerpt.length > 60 ? `${e.excerpt.slice(0, 57)}…` : e.excerpt}"`;
    if (e.page === null)
      return `line ${e.line}: the excerpt ${quote} occurs on ${pageList(e.alsoOn)} and nothing tells which: it was not anchored. Quote a longer passage that occurs once, or put it under the heading of its outline section.`;
    const why = e.decidedBy === 'section' ? "its heading's outline section" : 'reading order in its section';
    return `line ${e.line}: the excerpt ${quote} occurs on page ${e.page} and also on ${pageList(e.alsoOn)}; placed on page ${e.page} by ${why}. Check it is the right one, or quote a longer passage.`;
  });
  const more = p.excerpts.filter((e) => e.alsoOn).length - lines.length;
  if (more > 0)
    lines.push(`${more} more excerpts occur on several pages: see ambiguous and alsoOn in check's excerpts.`);
  return lines;
}

/** Check's list of excerpts, result.md order. Written out: rest-and-spread of 2,000 records costs several times more. */
export function checkExcerpts(p: ImportPlan) {
  return p.excerpts
    .map((e) => ({
      kind: e.kind,
      line: e.line,
      excerpt: e.excerpt,
      anchored: e.anchored,
      page: e.page,
      rect: e.rect,
      rects: e.rects,
      score: e.score,
      reason: e.reason,
      ambiguous: e.alsoOn ? true : undefined,
      alsoOn: e.alsoOn,
      decidedBy: e.decidedBy,
      cardKey: e.noteid,
    }))
    .sort((a, b) => a.line - b.line);
}
