import { isCjkCode, tokenize } from './tokenize';

/**
 * What the search indexes (the card index and the book text index) are fed
 * and asked, from the same folding and tokens as the matcher (fold.ts,
 * tokenize.ts), so a word found by locate is a word found by search.
 *
 * Latin tokens are index terms as they are. Chinese, Japanese and Korean
 * write words without spaces, so a CJK run (characters with nothing between
 * them but a line break) is held twice: as its overlapping character bigrams
 * plus its last character, which find any substring of two or more
 * characters and, read as prefixes, any single character; and as its words
 * (Intl.Segmenter) of three characters or more, which rank a page where the
 * query is a word above one where its characters only meet. Bigrams are the
 * fallback because segmentation splits a run differently depending on the
 * text around it (광합성 is the word 광합성은 on the page), so a word query
 * alone would miss pages; a two-character word is one of the bigrams anyway.
 */

/** A run of key chars: one Latin token, or CJK characters that stood together. */
interface Piece {
  key: string;
  cjk: boolean;
}

/** Between two CJK characters of one run: nothing but zero-width characters, or a line break (CJK lines join without a space). */
const SAME_RUN = /^[\u00ad\u200b-\u200d\u2060\ufeff]*$|^\s*[\r\n]\s*$/;

const MIN_WORD = 3;
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let prevTo = -1;
  for (const t of tokenize(text)) {
    const cjk = t.key.length > 0 && isCjkCode(t.key.charCodeAt(0));
    const last = out[out.length - 1];
    if (cjk && last?.cjk && (t.from === prevTo || SAME_RUN.test(text.slice(prevTo, t.from)))) last.key += t.key;
    else out.push({ key: t.key, cjk });
    prevTo = t.to;
  }
  return out;
}

/** A CJK run's bigrams in order. */
function bigrams(chars: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  return out;
}

/** A CJK run's words of three characters or more (shorter ones are bigrams or single characters already). */
function words(run: string): string[] {
  const out: string[] = [];
  for (const s of segmenter.segment(run))
    if (s.isWordLike && Array.from(s.segment).length >= MIN_WORD) out.push(s.segment);
  return out;
}

/**
 * Index terms of a text, in order: Latin tokens; per CJK run, its bigrams,
 * its last character, then its words (after the bigrams, so a run's bigrams
 * sit at consecutive positions and a query's bigrams match as a phrase).
 */
export function indexTerms(text: string): string[] {
  const out: string[] = [];
  for (const p of pieces(text)) {
    if (!p.cjk) {
      out.push(p.key);
      continue;
    }
    const chars = Array.from(p.key);
    out.push(...bigrams(chars), chars[chars.length - 1]);
    if (chars.length >= MIN_WORD) out.push(...words(p.key));
  }
  return out;
}

/** One piece of a query, as the indexes are asked for it. */
export interface QueryPart {
  /** The folded piece: a Latin token, or a CJK run (what a snippet looks for). */
  key: string;
  cjk: boolean;
  /**
   * Terms that must all be there: a Latin token or a single CJK character (each
   * read as a prefix when whole terms find too little), or a run's bigrams
   * (whole terms, consecutive in the card index).
   */
  terms: string[];
  /** The terms may be prefixes of index terms. */
  prefix: boolean;
  /** The run's words: not required, they only rank a page higher. */
  bonus: string[];
}

/** A search query's limits, on every port: its length in characters, and the pieces (terms) it is read as. */
export const QUERY_LIMITS = { chars: 200, terms: 16 } as const;

/** Pieces of a query, at most `max` (a query is not a document). */
export function searchQuery(q: string, max: number = QUERY_LIMITS.terms): QueryPart[] {
  return pieces(q)
    .slice(0, max)
    .map((p): QueryPart => {
      const chars = Array.from(p.key);
      if (!p.cjk || chars.length === 1) return { key: p.key, cjk: p.cjk, terms: [p.key], prefix: true, bonus: [] };
      return {
        key: p.key,
        cjk: true,
        terms: bigrams(chars),
        prefix: false,
        bonus: chars.length >= MIN_WORD ? words(p.key) : [],
      };
    });
}
