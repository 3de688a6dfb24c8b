import type { OutlineSegment } from '../../ground/pdf/pdfTypes';
import type { BundleMeta } from './bundleFiles';

/**
 * The first draft of result.md: the book's outline over the bundle's pages as
 * headings, a valid outline (the first heading is `#`, none deeper than the one
 * before it + 1). Every section that starts on one of the pages is kept, the
 * last page included (several sections often start on one page, and the last
 * of them runs on past it). A section that began before the pages and runs on
 * into them gives the context heading (the chapter a mid-chapter range sits
 * in); one that ends on the first page (the next starts there) is a neighbour
 * and left out.
 */

/** Contiguous runs [first, last] of sorted page numbers. */
function runs(pages: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of pages) {
    const last = out[out.length - 1];
    if (last && p === last[1] + 1) last[1] = p;
    else out.push([p, p]);
  }
  return out;
}

/** The page each section ends on: where the next one at its level or above starts (it may share that page), else the book's last. */
function sectionEnds(outline: OutlineSegment[], lastPage: number): number[] {
  return outline.map((s, i) => {
    const next = outline.slice(i + 1).find((n) => n.level <= s.level);
    return Math.max(s.startPage, next ? next.startPage : lastPage);
  });
}

/** The outline entries the draft keeps, in outline order. */
export function draftSections(outline: OutlineSegment[], pages: number[], pageCount: number): OutlineSegment[] {
  const ends = sectionEnds(outline, pageCount > 0 ? Math.max(pageCount, ...pages) : Number.POSITIVE_INFINITY);
  const spans = runs([...pages].sort((a, b) => a - b));
  return outline.filter((s, i) =>
    spans.some(([a, b]) => {
      const start = s.startPage;
      const end = ends[i];
      if (start < a) return end > a; // began before: kept when it runs on past the first page
      return start <= b;
    }),
  );
}

/** Markdown headings for `sections`, each at most one level below the heading before it (and at most 6 deep). */
export function outlineHeadings(sections: OutlineSegment[]): string[] {
  const open: number[] = []; // outline levels of the headings this one may sit under
  return sections.map((s) => {
    while (open.length && open[open.length - 1] >= s.level) open.pop();
    const depth = Math.min(6, open.length + 1);
    open.push(s.level);
    return `${'#'.repeat(depth)} ${s.title.replace(/\s+/g, ' ').trim()}`;
  });
}

export function draftResult(
  m: Pick<BundleMeta, 'pages' | 'segments'>,
  outline: OutlineSegment[],
  pageCount = 0,
): string {
  const kept = draftSections(outline, m.pages, pageCount);
  const headings = kept.length
    ? outlineHeadings(kept)
    : m.segments.map((s) => `# ${s.title ?? `Pages ${s.startPage}–${s.endPage}`}`);
  return `${headings.join('\n\n')}\n`;
}
