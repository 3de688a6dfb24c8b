/**
 * The false-anchor measure over producers: per book, 12-word windows that
 * pdftotext reads from its pages (positives, on their page) and the same
 * prose windows shuffled (negatives: a page's own words, in another order).
 * A negative is a false anchor when anchoring in its book or locate on its
 * page accepts it.
 */
import { AnchorIndex } from '../../src/server/ground/text/anchorIndex';
import { foldItems, foldKey } from '../../src/server/ground/text/fold';
import { locateText } from '../../src/server/ground/text/locate';
import { keyTokens, quoteTokens } from '../../src/server/ground/text/tokenize';
import type { PageData } from '../../src/server/ground/pdf/pdfTypes';
import { isProse, pdftotextPageOf, shuffle } from './labelledSet';
import type { ProducerBook } from './producers';
import { rng } from './rng';

export interface ProducerQuote {
  book: string;
  producer: string;
  page: number;
  text: string;
  positive: boolean;
}

export interface ProducerScore {
  producer: string;
  positives: number;
  /** Positives anchored on their page. */
  anchored: number;
  negatives: number;
  /** Negatives accepted by anchoring or by locate. */
  falseAnchors: string[];
}

/**
 * Prose of plain words, each one token: a shuffle of words that hold several
 * tokens in order (code such as \\begin{asy}[width=…]) keeps verbatim runs
 * of the page, so it is not a negative.
 */
const plainWords = (text: string) => isProse(text) && text.split(' ').every((w) => quoteTokens(w).length <= 1);

function onPageWords(page: PageData, text: string): boolean {
  const have = new Map<string, number>();
  for (const t of keyTokens(page.items, foldItems(page.items))) have.set(t.key, (have.get(t.key) ?? 0) + 1);
  return quoteTokens(text).every((t) => {
    const n = have.get(t.key) ?? 0;
    have.set(t.key, n - 1);
    return n > 0;
  });
}

/** Window lengths in words: quotes of 12 and 6, shuffles of 5 to 12 (a short shuffle lines up by chance more often). */
const POSITIVE_WORDS = [12, 6];
const NEGATIVE_WORDS = [5, 6, 8, 12];

/** Per page (every 4th of a long book): positives of each length, and shuffled prose windows of each length (three of each on a short book). */
export function producerQuotes(books: readonly ProducerBook[]): ProducerQuote[] {
  const random = rng(4242);
  const out: ProducerQuote[] = [];
  for (const b of books) {
    const step = b.pages.length > 100 ? 4 : 1;
    const each = b.pages.length <= 20 ? 3 : 1;
    for (const page of b.pages.filter((p, i) => i % step === 0 && !p.ocr && !p.unreadable)) {
      const words = pdftotextPageOf(b.file, page.page, []).split(/\s+/).filter(Boolean);
      if (words.length < 30) continue;
      const base = { book: b.book, producer: b.producer, page: page.page };
      const windowOf = (n: number) => {
        const at = Math.floor(random() * (words.length - n));
        const text = words.slice(at, at + n).join(' ');
        return foldKey(text).length >= 3 * n && onPageWords(page, text) ? text : undefined;
      };
      for (let k = 0; k < each; k++) {
        for (const n of POSITIVE_WORDS) {
          const text = windowOf(n);
          if (text) out.push({ ...base, text, positive: true });
        }
        for (const n of NEGATIVE_WORDS) {
          const text = windowOf(n);
          if (text && plainWords(text))
            out.push({ ...base, text: shuffle(text.split(' '), random).join(' '), positive: false });
        }
      }
    }
  }
  return out;
}

/** Scores per producer at the matcher's own acceptance. */
export function scoreProducers(books: readonly ProducerBook[], quotes: readonly ProducerQuote[]): ProducerScore[] {
  const out = new Map<string, ProducerScore>();
  const indexes = new Map<string, AnchorIndex>();
  for (const b of books)
    indexes.set(
      b.book,
      new AnchorIndex(b.pages.map((p) => ({ page: p.page, items: p.items, ocr: p.unreadable ? 2 : p.ocr ? 1 : 0 }))),
    );
  for (const q of quotes) {
    const s = out.get(q.producer) ?? {
      producer: q.producer,
      positives: 0,
      anchored: 0,
      negatives: 0,
      falseAnchors: [],
    };
    out.set(q.producer, s);
    const b = books.find((x) => x.book === q.book)!;
    const a = indexes.get(q.book)!.anchor(q.text);
    const pages = a.anchored ? [a.page!, ...(a.others ?? []).map((o) => o.page!)] : [];
    if (q.positive) {
      s.positives++;
      if (pages.includes(q.page)) s.anchored++;
    } else {
      s.negatives++;
      const l = locateText(b.pages.find((p) => p.page === q.page)!.items, q.text);
      if (a.anchored || l.found) s.falseAnchors.push(`${q.book} p${q.page} ${a.score}/${l.score}: ${q.text}`);
    }
  }
  return [...out.values()];
}
