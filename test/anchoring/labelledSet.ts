/**
 * The labelled anchoring set: quotes a second extractor (pdftotext, in its
 * reading-order, -layout and -raw modes) and the reader's pdf.js text layer
 * (content order, as a person copies it) take from corpus books and from
 * generated layout PDFs, each labelled with its page; and negatives that
 * must never anchor: shuffled page words, paraphrases of real sentences,
 * invented sentences. Shared by test/unit/anchoringSet.test.ts and
 * bench/anchoring.bench.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { foldItems, foldKey } from '../../src/server/ground/text/fold';
import { keyTokens, quoteTokens } from '../../src/server/ground/text/tokenize';
import { corpusFile } from '../unit/pdfCorpus';
import { extracted, sharedPool } from '../unit/pdfExtracted';
import { writeLayoutPdfs } from './layoutPdfs';
import { textLayerPages } from './textLayerText';
import { INVENTED, paraphrase } from './negatives';
import { rng } from './rng';

export type QuoteKind = 'pdftotext' | 'layout' | 'raw' | 'pdfjs' | 'shuffled' | 'paraphrase' | 'invented';

export interface LabelledQuote {
  book: string;
  page: number;
  text: string;
  kind: QuoteKind;
  /** True when the quote is on `page` and must anchor there. */
  positive: boolean;
}

export interface LabelledSet {
  books: Map<string, PageData[]>;
  /** The PDF of each book (corpus files and the made layouts). */
  files: Map<string, string>;
  quotes: LabelledQuote[];
  /** Windows left out because some of their words are not in our text layer of the page (a glyph our extraction reads differently). */
  skipped: number;
}

/** pdftotext modes; 'pdfjs' is the reader's text layer (textLayerText.ts). */
const MODES: [QuoteKind, string[]][] = [
  ['pdftotext', []],
  ['layout', ['-layout']],
  ['raw', ['-raw']],
  ['pdfjs', []],
];

export function pdftotextPage(file: string, page: number, args: string[]): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', ...args, '-f', String(page), '-l', String(page), file, '-'], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

const docTexts = new Map<string, string[]>();

/**
 * pdftotextPage of each page of a file, from one pdftotext run over the whole file cut at its form feeds (the same
 * text, page for page: one run per page cost ~0.2 s each, some 400 runs for the set). Kept per file and mode for
 * this process: the files read are the corpus's and ones made in a fresh folder.
 */
export function pdftotextPageOf(file: string, page: number, args: string[]): string {
  const key = `${args.join(' ')}\0${file}`;
  let pages = docTexts.get(key);
  if (!pages) {
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', ...args, file, '-'], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    pages = text.split('\f').map((t) => `${t}\f`);
    docTexts.set(key, pages);
  }
  if (page < 1 || page >= pages.length) throw new Error(`${file} has no page ${page}`);
  return pages[page - 1];
}

/** Every token of the quote occurs on the page (as a multiset), so a miss is the matcher's, not the text layer's. */
export function onPageWords(page: PageData, text: string): boolean {
  const have = new Map<string, number>();
  for (const t of keyTokens(page.items, foldItems(page.items))) have.set(t.key, (have.get(t.key) ?? 0) + 1);
  for (const t of quoteTokens(text)) {
    const n = have.get(t.key) ?? 0;
    if (!n) return false;
    have.set(t.key, n - 1);
  }
  return true;
}

export async function extractFile(file: string): Promise<PageData[]> {
  const pages: PageData[] = [];
  const h = sharedPool().extractDocument({ key: file, path: file }, { onPage: (p) => pages.push(p) });
  await h.info;
  await h.done;
  return pages.sort((a, b) => a.page - b.page);
}

/** Pages sampled per book: every page of short ones, every 4th of the long manual. */
const pageStep = (count: number) => (count > 100 ? 4 : 1);

let built: Promise<LabelledSet> | undefined;

/**
 * The set, built once per process (seeded, so the same each time): anchoringSet and anchorGeometry both measure it
 * in one mocha run, and neither changes it.
 */
export function labelledSet(): Promise<LabelledSet> {
  built ??= buildLabelledSet();
  return built;
}

async function buildLabelledSet(): Promise<LabelledSet> {
  const random = rng(17);
  const layerRandom = rng(1717);
  const books = new Map<string, PageData[]>();
  const files: string[] = [];
  for (const name of ['4ti2_manual.pdf', 'asymptote.pdf', 'CAD.pdf']) {
    books.set(name, (await extracted(name)).pages);
    files.push(corpusFile(name));
  }
  for (const file of await writeLayoutPdfs(mkdtempSync(join(tmpdir(), 'sb-anchoring-')))) {
    books.set(basename(file), await extractFile(file));
    files.push(file);
  }
  const quotes: LabelledQuote[] = [];
  let skipped = 0;
  const realWindows: LabelledQuote[] = [];
  for (const file of files) {
    const book = basename(file);
    const pages = books.get(book)!;
    const perPage = book.endsWith('.pdf') && pages.length <= 7 ? 3 : 1;
    const sampled = pages.filter((p, i) => i % pageStep(pages.length) === 0 && !p.ocr && !p.unreadable);
    const layer = await textLayerPages(
      file,
      sampled.map((p) => p.page),
    );
    for (const page of sampled) {
      for (const [kind, args] of MODES) {
        const words = (kind === 'pdfjs' ? layer.get(page.page)! : pdftotextPageOf(file, page.page, args))
          .split(/\s+/)
          .filter(Boolean);
        if (words.length < 30) continue;
        // pdf.js quotes draw from their own generator, so the pdftotext windows stay the ones measured before.
        const pick = kind === 'pdfjs' ? layerRandom : random;
        for (let k = 0; k < perPage; k++) {
          const at = Math.floor(pick() * (words.length - 12));
          const text = words.slice(at, at + 12).join(' ');
          if (foldKey(text).length < 40) continue;
          if (!onPageWords(page, text)) {
            skipped++;
            continue;
          }
          const q: LabelledQuote = { book, page: page.page, text, kind, positive: true };
          quotes.push(q);
          if (kind === 'pdftotext' && isProse(text)) realWindows.push(q);
        }
      }
    }
  }
  // Negatives: shuffled windows and paraphrases of real windows (on their own page), invented sentences (on a random page).
  for (let k = 0; k < 140; k++) {
    const src = realWindows[Math.floor(random() * realWindows.length)];
    quotes.push({ ...src, text: shuffle(src.text.split(' '), random).join(' '), kind: 'shuffled', positive: false });
  }
  for (let k = 0; k < 110; k++) {
    const src = realWindows[Math.floor(random() * realWindows.length)];
    quotes.push({ ...src, text: paraphrase(src.text, random), kind: 'paraphrase', positive: false });
  }
  for (const text of INVENTED) {
    const src = realWindows[Math.floor(random() * realWindows.length)];
    quotes.push({ book: src.book, page: src.page, text, kind: 'invented', positive: false });
  }
  return { books, files: new Map(files.map((f) => [basename(f), f])), quotes, skipped };
}

export { shuffle };

/** A sentence, not code: most words are one plain word (a code line's "words" hold several tokens in order). */
export const isProse = (text: string) => {
  const words = text.split(' ');
  return words.filter((w) => /^[\p{L}]+[,.;:]?$/u.test(w)).length >= words.length * 0.75;
};

/** A permutation of the words with at most one pair of tokens still neighbours in the same order (else it is part of a real quote). */
function shuffle(words: string[], random: () => number): string[] {
  const pairs = (ws: string[]) => {
    const t = quoteTokens(ws.join(' ')).map((x) => x.key);
    return new Set(t.slice(1).map((k, i) => `${t[i]} ${k}`));
  };
  const original = pairs(words);
  for (let tries = 0; ; tries++) {
    const w = [...words];
    for (let i = w.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [w[i], w[j]] = [w[j], w[i]];
    }
    const kept = [...pairs(w)].filter((p) => original.has(p)).length;
    if (kept <= 1 || tries > 200) return w;
  }
}
