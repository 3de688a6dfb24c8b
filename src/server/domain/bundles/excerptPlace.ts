import type { OutlineSegment } from '../../ground/pdf/pdfTypes';
import { foldKey } from '../../ground/text/fold';
import type { AnchorResult } from '../../ground/text/anchorIndex';
import type { ParsedCard } from './parsedResult';

/**
 * Where an excerpt that matches on several pages goes. The matcher places it
 * on each; the context decides: the page range of the outline section its
 * heading names, then reading order (the first place at or after the
 * section's start and the excerpts before it in the section). With nothing
 * to decide by, the excerpt is not anchored (reason "ambiguous"): placing it
 * on the first page would be a silent guess.
 */

/** What an ambiguous excerpt was decided by. */
export type DecidedBy = 'section' | 'reading_order';

export interface Placed {
  result: AnchorResult;
  /** The other pages it matches on; absent when it matches on one page. */
  alsoOn?: number[];
  decidedBy?: DecidedBy;
}

/** A heading's outline section: [first page, last page] (the last may be shared with the next section). */
export type SectionRange = [number, number];

/** Each outline entry's page range (it ends where the next entry at its level or above starts). */
export function sectionRanges(
  outline: readonly OutlineSegment[],
  lastPage: number,
): { key: string; range: SectionRange }[] {
  return outline.map((s, i) => {
    const next = outline.slice(i + 1).find((n) => n.level <= s.level);
    return { key: foldKey(s.title), range: [s.startPage, Math.max(s.startPage, next ? next.startPage : lastPage)] };
  });
}

/**
 * The page range of each card's section, by its heading's title among the
 * outline titles (the draft's headings are the outline's): the same title,
 * else the one outline title that contains it or that it contains. A heading
 * not in the outline takes its parent's range.
 */
export function cardRanges(
  cards: readonly ParsedCard[],
  sections: readonly { key: string; range: SectionRange }[],
): (SectionRange | undefined)[] {
  const out: (SectionRange | undefined)[] = [];
  for (const c of cards) {
    const key = foldKey(c.title);
    let hit = key ? sections.filter((s) => s.key === key) : [];
    if (!hit.length && key.length >= 4)
      hit = sections.filter((s) => s.key.length >= 4 && (s.key.includes(key) || key.includes(s.key)));
    out.push(hit.length === 1 ? hit[0].range : c.parent !== null ? out[c.parent] : undefined);
  }
  return out;
}

/**
 * Settles a section's excerpts in file order. `range`: the section's pages;
 * `start`: the page reading resumes at (the section's first page).
 */
export function placeInSection(results: readonly AnchorResult[], range: SectionRange | undefined): Placed[] {
  let after = range?.[0];
  return results.map((r) => {
    const p = place(r, range, after);
    if (p.result.anchored && p.result.page !== undefined) after = p.result.page;
    return p;
  });
}

function place(r: AnchorResult, range: SectionRange | undefined, after: number | undefined): Placed {
  if (!r.others?.length) return { result: r };
  const all = [stripOthers(r), ...r.others].sort((a, b) => a.page! - b.page!);
  const pages = all.map((a) => a.page!);
  const choose = (chosen: AnchorResult, decidedBy: DecidedBy): Placed => ({
    result: chosen,
    alsoOn: pages.filter((p) => p !== chosen.page),
    decidedBy,
  });
  let pool = all;
  if (range) {
    const inRange = all.filter((a) => a.page! >= range[0] && a.page! <= range[1]);
    if (inRange.length === 1) return choose(inRange[0], 'section');
    if (inRange.length > 1) pool = inRange;
  }
  if (after !== undefined) {
    const next = pool.find((a) => a.page! >= after);
    if (next) return choose(next, 'reading_order');
  }
  return {
    result: { anchored: false, score: r.score, reason: 'ambiguous' },
    alsoOn: pages,
  };
}

const stripOthers = ({ others: _o, ...r }: AnchorResult): AnchorResult => r;
