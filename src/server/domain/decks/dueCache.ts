import type { Store } from '../../ground/store/store';

/**
 * The due queue's picks kept per store (deckDue.ts): which cards, in which
 * order, their faces and the counts are decided by the rows and by where
 * `now` falls among the cards' due moments and the study day. A kept pick is
 * reused only while the store's quiet mark is the one it was made under (no
 * write since, none in flight: store.quietMark) and its own `stillTrue` says
 * the clock has crossed nothing that could change it. A pick made while a
 * write is in flight is neither kept nor reused. What moves with every
 * millisecond (now, the buttons' intervals and dues) is made per call. At most
 * 8 picks per store (a pick of 1,000 cards with their faces is about 1 MB).
 *
 * A pick no longer true is handed to `make` as `stale` when no table but
 * SCHEDULE_TABLES was written since it was made, and no topics row but decks'
 * (a grade, a bury, a flag: each also stamps its deck's row): its cards' faces
 * still hold, so the remake re-picks and recounts in SQL but reuses each card
 * whose deck_cards row is unchanged (deckDue.ts). Any other write (a card's
 * text, a set hidden, an option, an Anki template) remakes it whole. Writes
 * are told apart by SQLite's update hook (store.writesByTable), which sees
 * every row the bridge writes but those of a `DELETE FROM t` without WHERE
 * (SQLite's truncation: used on none of the tables faces read).
 */
export class KeptPicks<T> {
  private readonly entries = new Map<string, { pick: T; mark: number; others: number; topics: number }>();

  constructor(
    private readonly store: Store,
    private readonly maxEntries = 8,
  ) {}

  /** The pick kept under `key` if it is still true, else `make(stale)` (kept when nothing was written meanwhile). */
  get(key: string, stillTrue: (kept: T) => boolean, make: (stale: T | undefined) => T): T {
    const mark = this.store.quietMark;
    if (mark === undefined) return make(undefined);
    const kept = this.entries.get(key);
    if (kept?.mark === mark && stillTrue(kept.pick)) return kept.pick;
    const writes = this.writes();
    const made = make(kept && this.onlySchedules(kept, writes) ? kept.pick : undefined);
    if (this.store.quietMark !== mark) return made;
    this.entries.delete(key); // to the newest end
    this.entries.set(key, { pick: made, mark, ...writes });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return made;
  }

  /** Row changes so far to topics, and to the tables other than SCHEDULE_TABLES and topics. */
  private writes(): { others: number; topics: number } {
    let others = 0;
    for (const [table, count] of this.store.writesByTable)
      if (!SCHEDULE_TABLES.has(table) && table !== 'topics') others += count;
    return { others, topics: this.store.writesByTable.get('topics') ?? 0 };
  }

  /** Whether what was written since `kept` was made is schedules only, and decks' topics rows (still there). */
  private onlySchedules(kept: { others: number; topics: number }, now: { others: number; topics: number }): boolean {
    if (kept.others !== now.others) return false;
    const rows = this.store.topicsWrittenSince(kept.topics);
    if (!rows) return false;
    if (!rows.length) return true;
    const ids = [...new Set(rows)];
    const decks = this.store.get<{ n: number }>(
      `SELECT count(*) AS n FROM topics WHERE rowid IN (SELECT value FROM json_each(?)) AND kind = 'deck'`,
      [JSON.stringify(ids)],
    )?.n;
    return decks === ids.length;
  }
}

/**
 * What grading and the card actions (suspend, bury, flag, set due) write besides their deck's topics row: the
 * schedule, the review log, the operation log and the counters kept from them. No face, no option reads these.
 */
const SCHEDULE_TABLES: ReadonlySet<string> = new Set([
  'deck_cards',
  'review_logs',
  'operations',
  'deck_due_days',
  'review_hours',
  'meta',
]);

const byStore = new WeakMap<Store, KeptPicks<unknown>>();

/** The store's kept picks (one set per store: each bridge has its own). */
export function keptPicks<T>(store: Store): KeptPicks<T> {
  let kept = byStore.get(store);
  if (!kept) byStore.set(store, (kept = new KeptPicks<unknown>(store)));
  return kept as KeptPicks<T>;
}

/**
 * The first moment after `nowText` at which a buried card's burying ends: from then it counts among the day's
 * due cards (dueTodayCount) even when its due moment is later, so a kept pick holds until then at most.
 */
export function buryingEndsAt(store: Store, deckId: string, nowText: string): string | null {
  return (
    store.get<{ d: string | null }>(
      `SELECT min(coalesce(buried_until, '')) AS d FROM deck_cards INDEXED BY deck_cards_buried
       WHERE deck_id = ? AND queue = 'buried' AND coalesce(buried_until, '') > ?`,
      [deckId, nowText],
    )?.d ?? null
  );
}

/** Whether two reads of a row hold the same values (every column, as read): a kept card is reused only then. */
export function sameRow<R extends object>(a: R, b: R): boolean {
  const keys = Object.keys(a) as Array<keyof R>;
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
