import type { Store } from '../store/store';
import type { QueryPart } from '../text/searchTerms';
import { cardQuery, plainTermOf, type CardQuery } from './cardIndexText';
import type { CommonTerms } from './commonTerms';
import type { Postings } from './postings';
import { bm25Score } from './searchRanking';

// 'pcnaly': phrases, columns, rows, average and this row's column lengths,
// this row's hits per phrase and column. Not 'x': its global hit counts cost
// one more pass over each word's whole doclist (13 ms for a word in all 100k
// cards), more than the rest of the search; every hit holds every word
// (AND), so leaving out the idf only stops weighting rare words above common ones.
const RANK_INFO = 'pcnaly';
/** notes_fts(noteid, topicid, body): the column a common term is counted in (ids never hold CJK). */
const BODY = 2;

export interface Candidate {
  docid: number;
  score: number;
}

/**
 * The same words as whole words. FTS4 reads a whole word's doclist
 * incrementally (a window of 2000 of 100k hits: ~1 ms) but merges a prefix's
 * whole doclist first (~30 ms for a word in all 100k cards), so a search
 * tries whole words first and only falls back to prefixes when those do not
 * fill the window.
 */
export const ftsWholeWords = (prefixQuery: string) => prefixQuery.replace(/\*/g, '');

/**
 * The card index window of a query: the newest `window` cards that hold
 * every part, ranked bm25 (searchRanking.ts), ties newest first; `cut` when
 * more matched. Whole-word hits alone fill a cut window (they rank above
 * prefix-only hits anyway); otherwise prefix hits are read.
 *
 * A part that is one CJK term in at least half the cards (commonTerms.ts),
 * once its postings are built, is not asked of FTS4: the other parts are,
 * and each row they find is kept when the postings hold the common term,
 * its matchinfo completed with the term's hits, so the rank is the one
 * FTS4's own AND would give, in the same order.
 */
export function rankCardWindow(store: Pick<Store, 'all'>, parts: readonly QueryPart[], window: number, common?: CommonTerms): { ranked: Candidate[]; cut: boolean } {
  const query = cardQuery(parts)!;
  const split = common && splitCommon(parts, common);
  const asked = split ? cardQuery(split.rest)! : query;
  const complete = split ? completer(query, asked, split) : (_docid: number, mi: Uint8Array) => mi;
  const read = (match: string) => readWindow(store, match, window, complete);
  const whole = ftsWholeWords(asked.match);
  let rows = read(whole);
  // A query without prefixes (CJK words: bigram phrases) would only ask the same again.
  if (rows.length <= window && whole !== asked.match) rows = read(asked.match);
  const cut = rows.length > window;
  const ranked = rows.slice(0, window).map((r) => ({ docid: r.docid, score: bm25Score(r.mi, query.rank) }));
  // Ties keep the newest first (the order rows came in: sort is stable).
  ranked.sort((a, b) => b.score - a.score);
  return { ranked, cut };
}

interface Split {
  rest: QueryPart[];
  /** Per part of the query: its index among `rest`, or its common term's postings. */
  source: Array<{ rest: number } | { postings: Postings }>;
}

/** The parts whose common term's postings are ready, taken out of the query; at least one part stays. */
function splitCommon(parts: readonly QueryPart[], common: CommonTerms): Split | undefined {
  if (parts.length < 2) return undefined;
  const rest: QueryPart[] = [];
  const source: Split['source'] = [];
  parts.forEach((p, i) => {
    const term = plainTermOf(p);
    const postings = term !== undefined && (rest.length > 0 || i < parts.length - 1) ? common.postings(term) : undefined;
    if (postings) source.push({ postings });
    else source.push({ rest: rest.push(p) - 1 });
  });
  return rest.length < parts.length && rest.length > 0 ? { rest, source } : undefined;
}

/**
 * The matchinfo the whole query would have had, from the rest's matchinfo
 * and the common terms' postings: same header (rows, averages, this row's
 * lengths), each phrase's hits copied from the rest's same phrase or, for
 * a common term, its hits in the body. `undefined` when a common term is
 * not in the card.
 */
function completer(query: CardQuery, asked: CardQuery, split: Split) {
  const from = query.phrases.map((ph) => {
    const s = split.source[ph.part];
    if ('postings' in s) return s.postings;
    const at = asked.phrases.findIndex((a) => a.part === s.rest && a.kind === ph.kind);
    return at; // -1: the bigram asked beside a word with more parts only; never ranked
  });
  const p = query.phrases.length;
  return (docid: number, mi: Uint8Array): Uint8Array | undefined => {
    const m = new Uint32Array(mi.buffer, mi.byteOffset, mi.byteLength >> 2);
    const c = m[1];
    const out = new Uint32Array(3 + 2 * c + p * c);
    out.set(m.subarray(0, 3 + 2 * c));
    out[0] = p;
    const hits = 3 + 2 * c;
    for (let k = 0; k < p; k++) {
      const f = from[k];
      if (typeof f === 'number') {
        if (f >= 0) out.set(m.subarray(hits + f * c, hits + f * c + c), hits + k * c);
        continue;
      }
      const tf = f.get(docid);
      if (!tf) return undefined;
      out[hits + k * c + BODY] = tf;
    }
    return new Uint8Array(out.buffer);
  };
}

/** Up to window + 1 rows, newest first, that `complete` keeps; read on below the last docid while it drops rows. */
function readWindow(store: Pick<Store, 'all'>, match: string, window: number, complete: (docid: number, mi: Uint8Array) => Uint8Array | undefined) {
  const out: Array<{ docid: number; mi: Uint8Array }> = [];
  let below: number | undefined;
  for (;;) {
    const want = window + 1 - out.length;
    const rows = store.all<{ docid: number; mi: Uint8Array }>(
      `SELECT docid, matchinfo(notes_fts, '${RANK_INFO}') AS mi FROM notes_fts WHERE notes_fts MATCH ?${below === undefined ? '' : ' AND docid < ?'} ORDER BY docid DESC LIMIT ?`,
      below === undefined ? [match, want] : [match, below, want],
    );
    for (const r of rows) {
      const mi = complete(r.docid, r.mi);
      if (mi) out.push({ docid: r.docid, mi });
    }
    if (out.length > window || rows.length < want) return out;
    below = rows[rows.length - 1].docid;
  }
}
