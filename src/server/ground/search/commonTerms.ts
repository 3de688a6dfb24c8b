import type { CardIndexChange, Store } from '../store/store';
import { rowsByDocid } from './indexRows';
import { Postings } from './postings';

/**
 * Postings, kept in memory, of the CJK terms that are in at least half the
 * cards (a word like 细胞 in a biology library). FTS4 answers an AND by
 * decoding every term's whole doclist: 叶绿体 细胞 at 100k cards spends ~8 of
 * its ~12 ms walking 细胞's 100k entries to meet 叶绿体's 1,000. With these
 * postings the card search asks FTS4 for the rarer parts only and checks
 * the common term in memory (cardWindow.ts), with the same bm25.
 *
 * Whether a term is common is asked, and its postings are built, in the
 * background, a chunk of the card index per turn of the event loop; the
 * postings are kept exact from then on: every committed
 * batch names the card index rows it wrote or deleted (store.onCommit), and
 * those rows are read again. A batch too large to name (an import, a
 * rebuild of the index) drops the postings; the next search that needs
 * them builds them again, and searches take FTS4's own AND meanwhile.
 */

/** A term counts as common in at least this share of the cards ... */
const COMMON_SHARE = 0.5;
/** ... and this many: below, FTS4's walk of its doclist costs under a millisecond. */
const COMMON_MIN_CARDS = 10_000;
/** Terms whose postings are kept (~770 KB each at 100k cards), the least recently used dropped first. */
const MAX_TERMS = 4;
/** Card index rows read per turn of the event loop while building (~5 ms at 100k cards: requests go on between). */
const BUILD_CHUNK = 1000;
/** Verdicts (common or not) remembered; one is asked again once this share of the index changed since. */
const MAX_VERDICTS = 1000;
const VERDICT_STALE_SHARE = 0.1;

interface Verdict {
  common: boolean;
  /** `changed` and the number of cards when it was given. */
  at: number;
  cards: number;
}

export class CommonTerms {
  private readonly ready = new Map<string, Postings>();
  private readonly verdicts = new Map<string, Verdict>();
  private building: { term: string; postings: Postings; dirty: Set<number> } | undefined;
  /** Card index rows changed since start: when a verdict is stale. */
  private changed = 0;

  private readonly minCards: number;

  /** `minCards`: fewer cards than this and no term is common (tests lower it). */
  constructor(
    private readonly store: Pick<Store, 'all' | 'get' | 'onCommit'>,
    opts: { minCards?: number } = {},
  ) {
    this.minCards = opts.minCards ?? COMMON_MIN_CARDS;
    store.onCommit((_revision, _changes, cardIndex) => this.committed(cardIndex));
  }

  /**
   * The term's postings when it is common and they are built; `undefined`
   * otherwise (then a common term's postings start building).
   */
  postings(term: string): Postings | undefined {
    const held = this.ready.get(term);
    if (held) {
      // Most recently used last.
      this.ready.delete(term);
      this.ready.set(term, held);
      return held;
    }
    // Whether it is common is asked in the background too (up to half the cards' doclist: ~20-40 ms at 100k).
    const knownRare = this.verdicts.get(term)?.common === false && !this.stale(term);
    if (!knownRare) this.build(term);
    return undefined;
  }

  /** For diagnostics, tests and the bench: the terms whose postings are ready, their bytes, and a build under way. */
  get state(): { ready: string[]; bytes: number; building: string | undefined } {
    return {
      ready: [...this.ready.keys()],
      bytes: [...this.ready.values()].reduce((n, p) => n + p.bytes, 0),
      building: this.building?.term,
    };
  }

  /** A verdict given before this share of the index changed is asked again. */
  private stale(term: string): boolean {
    const v = this.verdicts.get(term);
    return !v || this.changed - v.at >= Math.max(1000, v.cards * VERDICT_STALE_SHARE);
  }

  private isCommon(term: string): boolean {
    const v = this.verdicts.get(term);
    if (v && !this.stale(term)) return v.common;
    const cards = this.store.get<{ n: number }>('SELECT count(*) AS n FROM notes_fts_content')?.n ?? 0;
    let common = false;
    if (cards >= this.minCards) {
      const need = Math.ceil(cards * COMMON_SHARE);
      // Counts up to the share only. The term is CJK letters: nothing in it is read as an operator.
      const n =
        this.store.get<{ n: number }>(
          'SELECT count(*) AS n FROM (SELECT 1 FROM notes_fts WHERE notes_fts MATCH ? LIMIT ?)',
          [`"${term}"`, need],
        )?.n ?? 0;
      common = n >= need;
    }
    if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
    this.verdicts.set(term, { common, at: this.changed, cards });
    return common;
  }

  /** Asks whether the term is common, then builds it: one term at a time, oldest cards first (postings append), a chunk per turn. */
  private build(term: string): void {
    if (this.building) return;
    const job = { term, postings: new Postings(), dirty: new Set<number>() };
    this.building = job;
    let above: number | undefined;
    const step = () => {
      if (this.building !== job) return; // dropped by a large batch
      try {
        if (above === undefined) {
          above = -1;
          if (!this.isCommon(term)) {
            this.building = undefined;
            return;
          }
        }
        const rows = this.store.all<{ docid: number; body: string }>(
          'SELECT docid, c2body AS body FROM notes_fts_content WHERE docid > ? AND instr(c2body, ?) > 0 ORDER BY docid LIMIT ?',
          [above, term, BUILD_CHUNK],
        );
        for (const r of rows) job.postings.set(r.docid, hitsOf(r.body, term));
        if (rows.length === BUILD_CHUNK) {
          above = rows[rows.length - 1].docid;
          setImmediate(step);
          return;
        }
        // Rows a batch changed while the chunks were read are read as they are now.
        this.reread(job.dirty, [job.postings], [term]);
        this.building = undefined;
        if (this.ready.size >= MAX_TERMS) this.ready.delete(this.ready.keys().next().value!);
        this.ready.set(term, job.postings);
      } catch {
        // The store closed (or the index is being rebuilt): the next search asks again.
        this.building = undefined;
      }
    };
    setImmediate(step);
  }

  private committed(cardIndex: Readonly<CardIndexChange>): void {
    if (cardIndex.all) {
      this.ready.clear();
      this.verdicts.clear();
      this.building = undefined;
      return;
    }
    if (!cardIndex.docids.length) return;
    this.changed += cardIndex.docids.length;
    for (const d of cardIndex.docids) this.building?.dirty.add(d);
    if (this.ready.size) this.reread(cardIndex.docids, [...this.ready.values()], [...this.ready.keys()]);
  }

  /** Sets each term's hits in the given cards from their index rows as they are now (0 for a deleted row). */
  private reread(docids: Iterable<number>, postings: Postings[], terms: string[]): void {
    const list = [...docids];
    const bodies = new Map(
      rowsByDocid<{ docid: number; body: string }>(
        this.store,
        'docid, c2body AS body FROM notes_fts_content',
        list,
      ).map((r) => [r.docid, r.body] as const),
    );
    for (const d of list) {
      const body = bodies.get(d);
      terms.forEach((t, i) => postings[i].set(d, body === undefined ? 0 : hitsOf(body, t)));
    }
  }
}

/**
 * How often the term is in an index body (terms joined by single spaces,
 * search/cardIndexText.ts): what FTS4's `simple` tokenizer would count.
 */
export function hitsOf(body: string | null, term: string): number {
  if (!body) return 0;
  let n = 0;
  for (let at = body.indexOf(term); at >= 0; at = body.indexOf(term, at + term.length)) {
    const before = at === 0 || body.charCodeAt(at - 1) === 32;
    const after = at + term.length === body.length || body.charCodeAt(at + term.length) === 32;
    if (before && after) n++;
  }
  return n;
}
