import type { Store } from '../store/store';
import type { QueryPart } from '../text/searchTerms';
import { cardQuery, plainTermOf, type CardQuery } from './cardIndexText';
import type { CardLengths } from './cardLengths';
import type { CommonTerms } from './commonTerms';
import type { Postings } from './postings';
import { bm25Of, bm25Score } from './searchRanking';

// 'pcnaly': phrases, columns, rows, average and this row's column lengths,
// this row's hits per phrase and column. Not 'x': its global hit counts cost
// one more pass over each word's whole doclist (13 ms for a word in all 100k
// cards), more than the rest of the search; every hit holds every word
// (AND), so leaving out the idf only stops weighting rare words above common ones.
const RANK_INFO = 'pcnaly';
/** The same without 'l' (one `%_docsize` lookup per row), when cardLengths.ts holds the lengths. */
const RANK_INFO_NO_LENGTHS = 'pcnay';
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
 * every part, newest first, each with its bm25 (searchRanking.ts; bestOf
 * orders them); `cut` when more matched. Whole-word hits alone fill a cut
 * window (they rank above prefix-only hits anyway); otherwise prefix hits
 * are read.
 *
 * What the bridge keeps in memory makes it cheaper, with the same rank:
 * - the rows' lengths (cardLengths.ts): FTS4 is asked for matchinfo without
 *   'l' (one `%_docsize` lookup per row) and the lengths are put back;
 * - a part that is one CJK term in at least half the cards
 *   (commonTerms.ts), once its postings are built, is not asked of FTS4:
 *   the other parts are, and a row they find is kept when the postings
 *   hold the term, its matchinfo completed with the term's hits;
 * - a query of that one term alone reads no row at all (commonAlone).
 * Either way the matchinfo ranked is the one FTS4's own query gives.
 */
export function rankCardWindow(
  store: Pick<Store, 'all'>,
  parts: readonly QueryPart[],
  window: number,
  memory: { common?: CommonTerms; lengths?: CardLengths } = {},
): { rows: Candidate[]; cut: boolean } {
  const query = cardQuery(parts)!;
  const alone =
    parts.length === 1 && memory.lengths?.ready
      ? commonAlone(store, parts[0], memory.common, memory.lengths, query, window)
      : undefined;
  if (alone) return alone;
  const split = memory.common && splitCommon(parts, memory.common);
  const asked = split ? cardQuery(split.rest)! : query;
  const lengths = memory.lengths?.ready ? memory.lengths : undefined;
  const score =
    split || lengths
      ? scorer(query, asked, split, lengths)
      : (_docid: number, mi: Uint8Array) => bm25Score(mi, query.rank);
  const read = (match: string) => readWindow(store, match, lengths ? RANK_INFO_NO_LENGTHS : RANK_INFO, window, score);
  const whole = ftsWholeWords(asked.match);
  let rows = read(whole);
  // A query without prefixes (CJK words: bigram phrases) would only ask the same again.
  if (rows.length <= window && whole !== asked.match) rows = read(asked.match);
  return { rows: rows.slice(0, window), cut: rows.length > window };
}

const byScore = (a: Candidate, b: Candidate) => b.score - a.score;

/**
 * The `n` best of a window's rows, best first, ties newest first (the
 * order rows came in: sort is stable); rows tied with the n-th come too, so
 * a larger `n` gives the same order, longer. A search lists 20: sorting
 * 1,000–2,000 rows cost ~0.3 ms of it, finding the n-th score in a typed
 * array and sorting those above it a quarter of that.
 */
export function bestOf(rows: readonly Candidate[], n: number): Candidate[] {
  if (rows.length <= 4 * n) return [...rows].sort(byScore);
  const scores = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) scores[i] = rows[i].score;
  scores.sort();
  const least = scores[rows.length - n];
  return rows.filter((r) => r.score >= least).sort(byScore);
}

/**
 * A query of one common term, with lengths in memory: the window is the
 * postings' newest cards, ranked from the header FTS4 gives its first row
 * (rows, averages), without reading a row more (a term in all 100k cards:
 * 2,001 rows, ~7 ms of SQL).
 */
function commonAlone(
  store: Pick<Store, 'all'>,
  part: QueryPart,
  common: CommonTerms | undefined,
  lengths: CardLengths,
  query: CardQuery,
  window: number,
) {
  const term = plainTermOf(part);
  const postings = term === undefined ? undefined : common?.postings(term);
  if (!postings?.length) return undefined;
  const first = store.all<{ mi: Uint8Array }>(
    `SELECT matchinfo(notes_fts, 'pcna') AS mi FROM notes_fts WHERE notes_fts MATCH ? ORDER BY docid DESC LIMIT 1`,
    [query.match],
  )[0];
  if (!first) return undefined;
  const head = new Uint32Array(first.mi.buffer, first.mi.byteOffset, first.mi.byteLength >> 2);
  const c = head[1];
  const out = new Uint32Array(3 + 3 * c);
  const rows: Candidate[] = [];
  postings.newest(window + 1, (docid, hits) => {
    out.fill(0);
    out.set(head.subarray(0, 3 + c));
    lengths.read(docid, out, 3 + c);
    out[3 + 2 * c + BODY] = hits;
    rows.push({ docid, score: bm25Of(out, query.rank) });
  });
  return { rows: rows.slice(0, window), cut: rows.length > window };
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
    const postings =
      term !== undefined && (rest.length > 0 || i < parts.length - 1) ? common.postings(term) : undefined;
    if (postings) source.push({ postings });
    else source.push({ rest: rest.push(p) - 1 });
  });
  return rest.length < parts.length && rest.length > 0 ? { rest, source } : undefined;
}

/**
 * The rank of the 'pcnaly' matchinfo the whole query would have had, from
 * what FTS4 was asked ('pcnay' when the lengths are in memory, of the
 * rest's parts when split): same header (rows, averages), this row's
 * lengths, each phrase's hits copied from the asked query's same phrase
 * or, for a common term, its hits in the body. `undefined` when a common
 * term is not in the card. One buffer for every row: a search ranks up to
 * 2,000, and typed arrays made per row (a blob, subarrays) cost about a
 * quarter of the ranking's time (measured at 100k cards).
 */
function scorer(query: CardQuery, asked: CardQuery, split: Split | undefined, lengths: CardLengths | undefined) {
  const from = query.phrases.map((ph, k) => {
    if (!split) return k;
    const s = split.source[ph.part];
    if ('postings' in s) return s.postings;
    return asked.phrases.findIndex((a) => a.part === s.rest && a.kind === ph.kind); // -1: the bigram asked beside a word with more parts only; never ranked
  });
  const p = query.phrases.length;
  let out = new Uint32Array(0);
  return (docid: number, mi: Uint8Array): number | undefined => {
    const c = word(mi, 1);
    const hits = 3 + 2 * c;
    if (out.length !== hits + p * c) out = new Uint32Array(hits + p * c);
    else out.fill(0, hits);
    for (let i = 0; i < 3 + c; i++) out[i] = word(mi, i); // p, c, n, a
    out[0] = p;
    if (lengths) lengths.read(docid, out, 3 + c);
    else for (let i = 3 + c; i < hits; i++) out[i] = word(mi, i);
    const hitsIn = lengths ? 3 + c : hits;
    for (let k = 0; k < p; k++) {
      const f = from[k];
      if (typeof f === 'number') {
        if (f >= 0) for (let col = 0; col < c; col++) out[hits + k * c + col] = word(mi, hitsIn + f * c + col);
        continue;
      }
      const tf = f.get(docid);
      if (!tf) return undefined;
      out[hits + k * c + BODY] = tf;
    }
    return bm25Of(out, query.rank);
  };
}

/** The i-th 32-bit word of a matchinfo blob (little-endian, as sql.js hands it out): read in place, a typed-array view per row costs more than the row's rank. */
const word = (mi: Uint8Array, i: number): number =>
  (mi[4 * i] | (mi[4 * i + 1] << 8) | (mi[4 * i + 2] << 16) | (mi[4 * i + 3] << 24)) >>> 0;

/** Up to window + 1 rows, newest first, that `score` keeps, with their rank; read on below the last docid while it drops rows. */
function readWindow(
  store: Pick<Store, 'all'>,
  match: string,
  info: string,
  window: number,
  score: (docid: number, mi: Uint8Array) => number | undefined,
): Candidate[] {
  const out: Candidate[] = [];
  let below: number | undefined;
  for (;;) {
    const want = window + 1 - out.length;
    const rows = store.all<{ docid: number; mi: Uint8Array }>(
      `SELECT docid, matchinfo(notes_fts, '${info}') AS mi FROM notes_fts WHERE notes_fts MATCH ?${below === undefined ? '' : ' AND docid < ?'} ORDER BY docid DESC LIMIT ?`,
      below === undefined ? [match, want] : [match, below, want],
    );
    for (const r of rows) {
      const s = score(r.docid, r.mi);
      if (s !== undefined) out.push({ docid: r.docid, score: s });
    }
    if (out.length > window || rows.length < want) return out;
    below = rows[rows.length - 1].docid;
  }
}
