import type { PageData } from './pdfTypes';
import { bodyFontHeight, groupLines } from './layoutBlocks';

export interface TocAnchor {
  /** Centre of the heading line, page points from the left. */
  x: number;
  /** Top of the heading line, page points from the top. */
  y: number;
  page: number;
}

export interface TocCandidate {
  page: number;
  text: string;
  /** Font-size proxy (points). */
  height: number;
  anchor: TocAnchor;
  /** Ranking score, higher = more heading-like. */
  score: number;
}

const NUMBERED =
  /^(?:(?:chapter|part|section|appendix|kapitel|chapitre)\s+[\dIVXLC]+|\d+(?:\.\d+){0,4}\.?\s+\p{L}|[IVXLC]+\.\s+\p{L}|[A-Z]\.\d*\s+\p{L})/iu;

/**
 * The body font height of a set of pages: the most common height weighted
 * by characters, over all of them.
 */
export function documentBodyHeight(pages: Pick<PageData, 'items'>[]): number {
  return bodyFontHeight(pages.flatMap((p) => p.items));
}

/**
 * Heading candidates on stored pages, ranked best first: lines in a font
 * larger than the body, short, with few of their kind, near the top of the
 * page, numbered like a section. Lines in the body font count only when
 * numbered; running heads and page numbers (repeating text in the margins) are
 * dropped.
 */
export function tocCandidates(
  pages: Pick<PageData, 'page' | 'height' | 'items'>[],
  opts: { bodyHeight?: number; limit?: number } = {},
): TocCandidate[] {
  const body = opts.bodyHeight ?? documentBodyHeight(pages);
  // Text repeated in the margins of several pages = running heads.
  const marginCount = new Map<string, number>();
  const keyOf = (t: string) => t.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
  const linesByPage = pages.map((p) => ({ page: p, lines: groupLines(p.items) }));
  for (const { page, lines } of linesByPage) {
    for (const l of lines) {
      if (l.rect.y < page.height * 0.15 || l.rect.y + l.rect.h > page.height * 0.9) {
        const k = keyOf(l.text);
        marginCount.set(k, (marginCount.get(k) ?? 0) + 1);
      }
    }
  }
  const repeatBound = Math.max(3, pages.length * 0.2);
  const out: TocCandidate[] = [];
  for (const { page, lines } of linesByPage) {
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i];
      const text = l.text.replace(/\s+/g, ' ').trim();
      const letters = text.match(/\p{L}/gu)?.length ?? 0;
      if (letters < 2 || text.length > 120) continue;
      const inMargin = l.rect.y < page.height * 0.15 || l.rect.y + l.rect.h > page.height * 0.9;
      if (inMargin && (marginCount.get(keyOf(l.text)) ?? 0) >= Math.min(repeatBound, 3)) continue;
      if (/^[\d\s.,;:()\-–]+$/.test(text)) continue;
      const heightRatio = l.fontHeight / body;
      const numbered = NUMBERED.test(text);
      const bigger = heightRatio > 1.12;
      if (!bigger && !numbered) continue;
      // A big line inside a paragraph-like run of big lines (a title page, a table) scores lower.
      const endsLikeSentence = /[.;,]$/.test(text) && !numbered;
      let score = 0;
      score += Math.min(3, (heightRatio - 1) * 5);
      if (numbered) score += 1.5;
      if (/^(?:chapter|part|appendix)\b/i.test(text)) score += 1;
      score += (1 - Math.min(1, l.rect.y / page.height)) * 0.6;
      if (text.length <= 60) score += 0.3;
      if (endsLikeSentence) score -= 1;
      if (l.items.some((it) => it.mono)) score -= 1;
      if (!bigger) score -= 0.8;
      const r = (n: number) => Math.round(n * 100) / 100;
      out.push({
        page: page.page,
        text,
        height: r(l.fontHeight),
        anchor: { x: r(l.rect.x + l.rect.w / 2), y: r(l.rect.y), page: page.page },
        score: r(score),
      });
    }
  }
  out.sort((a, b) => b.score - a.score || a.page - b.page || a.anchor.y - b.anchor.y);
  return opts.limit ? out.slice(0, opts.limit) : out;
}
