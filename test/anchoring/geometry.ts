/**
 * The labelled geometry set: where an anchor's rectangles begin and end,
 * against poppler's word boxes (`pdftotext -bbox-layout`, an extractor of
 * its own). Every positive quote of the labelled anchoring set, plus quotes
 * of two other producers made here: a LaTeX-like two-column PDF written with
 * pdf-lib (justified lines as TJ arrays, kerns, character spacing and
 * horizontal scaling) and an HTML page printed by Chromium. A quote begins
 * and ends at word boundaries, so its rectangles must begin at its first
 * word's left edge and end at its last word's right edge (punctuation
 * included, as the quote includes it). Shared by
 * test/unit/anchorGeometry.test.ts and bench/anchoringGeometry.bench.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { PageData, Rect, TextItem } from '../../src/server/ground/pdf/pdfTypes';
import { foldKey } from '../../src/server/ground/text/fold';
import { locateText } from '../../src/server/ground/text/locate';
import { corpusFile } from '../unit/pdfCorpus';
import { extracted } from '../unit/pdfExtracted';
import { labelledSet, pdftotextPageOf, extractFile, onPageWords } from './labelledSet';
import { writeGeometryPdfs } from './geometryPdfs';
import { rng } from './rng';

export interface WordBox {
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

export interface GeometryQuote {
  file: string;
  book: string;
  page: number;
  text: string;
  producer: string;
}

export interface GeometryResult {
  quote: GeometryQuote;
  /** Signed points: our left edge minus poppler's first word xMin; our right edge minus its last word xMax. */
  start?: number;
  end?: number;
  /** Why there is no comparison (not located, or poppler has no such word there). */
  unmatched?: string;
}

/** poppler's word boxes of every page of a file (page 1 first). */
export function popplerWords(file: string): WordBox[][] {
  const xml = execFileSync('pdftotext', ['-bbox-layout', '-enc', 'UTF-8', file, '-'], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const unescape = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  return xml
    .split('<page ')
    .slice(1)
    .map((page) =>
      [
        ...page.matchAll(/<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g),
      ].map((m) => ({ text: unescape(m[5]), xMin: +m[1], yMin: +m[2], xMax: +m[3], yMax: +m[4] })),
    );
}

const norm = (s: string) => s.normalize('NFKC');
const vOverlap = (r: Rect, w: WordBox) => Math.min(r.y + r.h, w.yMax) - Math.max(r.y, w.yMin);

/** poppler's box of the quote's word `word` on the line of `r` whose edge (`xMin` or `xMax`) is nearest to `x`. */
function wordAt(words: WordBox[], word: string, r: Rect, edge: 'xMin' | 'xMax', x: number): WordBox | undefined {
  const onLine = words.filter((w) => vOverlap(r, w) >= 0.5 * Math.min(r.h, w.yMax - w.yMin));
  const key = foldKey(word);
  const exact = onLine.filter((w) => norm(w.text) === norm(word));
  const near = (ws: WordBox[]) => ws.sort((a, b) => Math.abs(a[edge] - x) - Math.abs(b[edge] - x))[0];
  return near(exact) ?? (key ? near(onLine.filter((w) => foldKey(w.text) === key)) : undefined);
}

/** A word of no printable character (a glyph whose text is a control code, e.g. a matrix bracket). */
const unprintable = (w: string) => /^\p{Cc}+$/u.test(w);

/** The quote placed by locate on its page, its ends compared with poppler's words. */
export function measureQuote(items: readonly TextItem[], words: WordBox[], quote: GeometryQuote): GeometryResult {
  const ws = quote.text.trim().split(/\s+/);
  if (unprintable(ws[0]) || unprintable(ws[ws.length - 1]))
    return { quote, unmatched: 'begins or ends at a glyph whose text is a control character' };
  const loc = locateText(items, quote.text);
  if (!loc.found || !loc.rects?.length) return { quote, unmatched: 'not located' };
  const first = loc.rects[0];
  const last = loc.rects[loc.rects.length - 1];
  const a = wordAt(words, ws[0], first, 'xMin', first.x);
  const b = wordAt(words, ws[ws.length - 1], last, 'xMax', last.x + last.w);
  if (!a || !b) return { quote, unmatched: `poppler has no word "${!a ? ws[0] : ws[ws.length - 1]}" on that line` };
  return { quote, start: first.x - a.xMin, end: last.x + last.w - b.xMax };
}

/** 12-word windows of pdftotext's text of each page, as the labelled set takes them. */
function windows(file: string, pages: PageData[], perPage: number, seed: number): GeometryQuote[] {
  const random = rng(seed);
  const out: GeometryQuote[] = [];
  for (const page of pages) {
    const words = pdftotextPageOf(file, page.page, []).split(/\s+/).filter(Boolean);
    if (words.length < 30) continue;
    for (let k = 0; k < perPage; k++) {
      const at = Math.floor(random() * (words.length - 12));
      const text = words.slice(at, at + 12).join(' ');
      if (foldKey(text).length >= 40 && onPageWords(page, text))
        out.push({ file, book: basename(file), page: page.page, text, producer: producerOf(file) });
    }
  }
  return out;
}

const producerOf = (file: string) =>
  file.includes('latex-like')
    ? 'pdf-lib (LaTeX-like)'
    : file.includes('chromium')
      ? 'Chromium'
      : 'corpus / labelled set';

export interface GeometrySet {
  results: GeometryResult[];
  /** Pages per book, for a second measure (the bench's "before"). */
  books: Map<string, { file: string; pages: PageData[]; words: WordBox[][] }>;
}

/** Measures every quote: the labelled set's positives and windows of the two made PDFs. */
export async function geometrySet(): Promise<GeometrySet> {
  const set = await labelledSet();
  const books: GeometrySet['books'] = new Map();
  const fileOf = (book: string) => set.files.get(book) ?? corpusFile(book);
  const quotes: GeometryQuote[] = set.quotes
    .filter((q) => q.positive)
    .map((q) => ({
      file: fileOf(q.book),
      book: q.book,
      page: q.page,
      text: q.text,
      producer: 'corpus / labelled set',
    }));
  for (const [book, pages] of set.books) books.set(book, { file: fileOf(book), pages, words: [] });
  const dir = mkdtempSync(join(tmpdir(), 'sb-geometry-'));
  for (const file of await writeGeometryPdfs(dir)) {
    const pages = await extractFile(file);
    books.set(basename(file), { file, pages, words: [] });
    quotes.push(...windows(file, pages, 25, 35));
  }
  for (const b of books.values()) b.words = popplerWords(b.file);
  const results = quotes.map((q) => {
    const b = books.get(q.book)!;
    return measureQuote(b.pages[q.page - 1]?.items ?? [], b.words[q.page - 1] ?? [], q);
  });
  return { results, books };
}

export { extracted };
