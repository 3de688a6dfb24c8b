/** Scores of the labelled anchoring set, and the curve of anchored % and false anchors by threshold. */
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { AnchorIndex } from '../../src/server/ground/text/anchorIndex';
import { foldItems, foldKey, keyString } from '../../src/server/ground/text/fold';
import { locateText } from '../../src/server/ground/text/locate';
import type { LabelledQuote, LabelledSet } from './labelledSet';

export interface Scored {
  quote: LabelledQuote;
  /** locate on the quote's own page. */
  locate: number;
  /** Anchoring among all the book's pages (a bundle's index): the score, and whether its page holds the quote. */
  anchor: number;
  rightPage: boolean;
}

export interface CurvePoint {
  threshold: number;
  locatePct: number;
  anchorPct: number;
  /** Negatives at or above the threshold, by locate on their page and by anchoring in their book. */
  falseLocate: number;
  falseAnchor: number;
}

const anchorPages = (pages: PageData[]) =>
  pages.map((p) => ({ page: p.page, items: p.items, ocr: p.unreadable ? 2 : p.ocr ? 1 : 0 }));

export function scoreSet(set: LabelledSet): Scored[] {
  const indexes = new Map<string, AnchorIndex>();
  const keys = new Map<string, string>();
  const out: Scored[] = [];
  for (const q of set.quotes) {
    const pages = set.books.get(q.book)!;
    let index = indexes.get(q.book);
    if (!index) indexes.set(q.book, (index = new AnchorIndex(anchorPages(pages))));
    const page = pages.find((p) => p.page === q.page)!;
    const l = locateText(page.items, q.text, 0);
    const a = index.anchor(q.text, 0);
    // The same text printed on two pages (a repeated signature) is rightly anchored to either.
    const keyOf = (n: number) => {
      const id = `${q.book}#${n}`;
      let k = keys.get(id);
      if (k === undefined) keys.set(id, (k = keyString(foldItems(pages.find((p) => p.page === n)?.items ?? []))));
      return k;
    };
    const rightPage = a.page === q.page || (a.page !== undefined && keyOf(a.page).includes(foldKey(q.text)));
    out.push({ quote: q, locate: l.score, anchor: a.anchored ? a.score : 0, rightPage });
  }
  return out;
}

export function curve(scored: Scored[], thresholds: number[]): CurvePoint[] {
  const pos = scored.filter((s) => s.quote.positive);
  const neg = scored.filter((s) => !s.quote.positive);
  return thresholds.map((t) => ({
    threshold: t,
    locatePct: (100 * pos.filter((s) => s.locate >= t).length) / pos.length,
    anchorPct: (100 * pos.filter((s) => s.anchor >= t && s.rightPage).length) / pos.length,
    falseLocate: neg.filter((s) => s.locate >= t).length,
    falseAnchor: neg.filter((s) => s.anchor >= t).length,
  }));
}
