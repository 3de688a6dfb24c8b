/**
 * Quotes that run over a page break, as a person selects them in the reader:
 * the last words of page N and the first words of page N+1 in the pdf.js
 * text layer (running heads, page numbers and footnotes between them, where
 * the page has them). An anchor names one page, so such a quote can at best
 * anchor the part on one page; the anchoring bench measures how often and
 * where.
 */
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { corpusFile } from '../unit/pdfCorpus';
import { extracted } from '../unit/pdfExtracted';
import { textLayerPages } from './textLayerText';

export interface CrossPageQuote {
  book: string;
  /** The quote starts on `page` and ends on `page + 1`. */
  page: number;
  text: string;
  /** Words taken from page N and from page N+1. */
  before: number;
  after: number;
}

export async function crossPageQuotes(
  words = 6,
): Promise<{ books: Map<string, PageData[]>; quotes: CrossPageQuote[] }> {
  const books = new Map<string, PageData[]>();
  const quotes: CrossPageQuote[] = [];
  for (const name of ['4ti2_manual.pdf', 'asymptote.pdf', 'CAD.pdf']) {
    const pages = (await extracted(name)).pages;
    books.set(name, pages);
    const step = pages.length > 100 ? 4 : 1;
    const starts = pages
      .filter((p, i) => i % step === 0 && i + 1 < pages.length && !p.ocr && !pages[i + 1].ocr)
      .map((p) => p.page);
    const layer = await textLayerPages(corpusFile(name), [...new Set(starts.flatMap((n) => [n, n + 1]))]);
    for (const n of starts) {
      const a = layer.get(n)!.split(/\s+/).filter(Boolean);
      const b = layer
        .get(n + 1)!
        .split(/\s+/)
        .filter(Boolean);
      if (a.length < 30 || b.length < 30) continue;
      quotes.push({
        book: name,
        page: n,
        text: [...a.slice(-words), ...b.slice(0, words)].join(' '),
        before: words,
        after: words,
      });
    }
  }
  return { books, quotes };
}
