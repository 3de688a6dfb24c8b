import { indexTerms, type QueryPart } from '../text/searchTerms';

/**
 * What the card index (FTS4 `notes_fts.body`, tokenizer `simple`) is fed and
 * asked. The body is the card's index terms (text/searchTerms.ts) joined by
 * spaces: terms are letters and digits only, so `simple`, which splits at
 * ASCII characters other than letters and digits and lower-cases ASCII,
 * reads back exactly those terms and folds nothing itself. The card's own
 * text (for snippets) is read from its rows.
 */

/** The indexed body of a card's text (title, texts, #tags joined by newlines). */
export function cardIndexBody(text: string): string {
  // Plain ASCII (most cards): its terms are its runs of letters and digits, lower-cased; one string made, not one
  // per token (a 40,000-card import made ~170 MB of garbage here). cardIndexText.test.ts holds it equal.
  if (ASCII.test(text)) return text.toLowerCase().replace(NOT_TERM, ' ').trim();
  return indexTerms(text).join(' ');
}

const ASCII = /^[\x00-\x7f]*$/;
const NOT_TERM = /[^a-z0-9]+/g;

/** An FTS4 query for the card index and how its matchinfo phrases make the rank. */
export interface CardQuery {
  /** The MATCH expression. */
  match: string;
  /** Indices of the matchinfo phrases the rank sums, in order (searchRanking.ts bm25Score). */
  rank: number[];
  /** What each matchinfo phrase is, in order: a part's phrase, its word, or the bigram asked beside the word. */
  phrases: Array<{ part: number; kind: 'phrase' | 'word' | 'bigram' }>;
}

/**
 * The FTS4 query (enhanced syntax: implicit AND, OR, parentheses) of a
 * query's parts: every part must match; a Latin token or a lone CJK
 * character as a prefix, a CJK run as the phrase of its bigrams. Terms are
 * letters and digits only, so nothing the user typed is read as an operator.
 *
 * A run that is a word of its own is also asked as that word, which only
 * adds to the rank: a card holding the word holds its bigrams in sequence
 * (a word inside the run would widen the match, so then the phrase stands
 * alone). With one part that is `(word OR phrase)`. With more, the phrase
 * stands in the top-level AND and `(word OR bigram)` follows the parts, its
 * first bigram being true wherever the phrase is (cheaper than the phrase
 * again): FTS4 only considers deferring a very common token (reading it
 * from the few candidate rows instead of decoding its whole doclist) among
 * the tokens of one AND, and an OR in the AND would leave a word like 细胞
 * alone there (光合作用 细胞, 10 of 100k cards: window SQL ~5 → ~1.3 ms).
 * `rank` lists the phrases in the order of the single-part form (word, then
 * phrase, per part) and leaves out the bigram, so the rank is the same sum,
 * in the same order, as with one `(word OR phrase)` per part.
 *
 * CJK terms go without the `body:` filter, which costs FTS4 a column check
 * per doclist entry it decodes (~0.7 ms of an AND that decodes a bigram in
 * all 100k cards). A Latin prefix keeps it: it dates from when the ids were
 * indexed (their hex groups were Latin tokens; now they are stored only,
 * cards/rows/cardRowsIndex.ts), and beside the merge of a prefix's whole doclist
 * (~30 ms for a word in all 100k cards) the check costs little.
 */
export function cardQuery(parts: readonly QueryPart[]): CardQuery | undefined {
  if (!parts.length) return undefined;
  const phrase = (p: QueryPart) =>
    p.prefix ? `body:${p.terms[0]}*` : p.terms.length === 1 ? p.terms[0] : `"${p.terms.join(' ')}"`;
  const hasWord = (p: QueryPart) => !p.prefix && p.bonus.includes(p.key);
  if (parts.length === 1) {
    const [p] = parts;
    return hasWord(p)
      ? {
          match: `(${p.key} OR ${phrase(p)})`,
          rank: [0, 1],
          phrases: [
            { part: 0, kind: 'word' },
            { part: 0, kind: 'phrase' },
          ],
        }
      : { match: phrase(p), rank: [0], phrases: [{ part: 0, kind: 'phrase' }] };
  }
  const words = parts.filter(hasWord);
  const rank: number[] = [];
  const phrases: CardQuery['phrases'] = parts.map((_, part) => ({ part, kind: 'phrase' }));
  parts.forEach((p, i) => {
    // The word is phrase parts.length + 2j of the ORs that follow the parts; the bigram beside it (+1) is not summed.
    if (hasWord(p)) {
      rank.push(parts.length + 2 * words.indexOf(p));
      phrases.push({ part: i, kind: 'word' }, { part: i, kind: 'bigram' });
    }
    rank.push(i);
  });
  return { match: [...parts.map(phrase), ...words.map((p) => `(${p.key} OR ${p.terms[0]})`)].join(' '), rank, phrases };
}

/**
 * The one CJK index term a part is asked as, when it is asked as exactly
 * that term (a two-character run: one bigram, no word, no prefix), so its
 * hits can be counted from the index text (search/commonTerms.ts).
 */
export function plainTermOf(p: QueryPart): string | undefined {
  return p.cjk && !p.prefix && p.terms.length === 1 && !p.bonus.includes(p.key) ? p.terms[0] : undefined;
}

/** The MATCH expression alone (cardQuery). */
export function cardFtsQuery(parts: readonly QueryPart[]): string | undefined {
  return cardQuery(parts)?.match;
}
