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
 */
export class KeptPicks<T> {
  private readonly entries = new Map<string, T>();
  private mark: number | undefined;

  constructor(
    private readonly store: { readonly quietMark: number | undefined },
    private readonly maxEntries = 8,
  ) {}

  /** The pick kept under `key` if it is still true, else `make()` (kept when nothing was written meanwhile). */
  get(key: string, stillTrue: (kept: T) => boolean, make: () => T): T {
    const mark = this.store.quietMark;
    if (mark === undefined) return make();
    if (mark !== this.mark) {
      this.entries.clear();
      this.mark = mark;
    }
    const hit = this.entries.get(key);
    if (hit !== undefined && stillTrue(hit)) return hit;
    const made = make();
    if (this.store.quietMark !== mark) return made;
    this.entries.delete(key); // to the newest end
    this.entries.set(key, made);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return made;
  }
}

const byStore = new WeakMap<Store, KeptPicks<unknown>>();

/** The store's kept picks (one set per store: each bridge has its own). */
export function keptPicks<T>(store: Store): KeptPicks<T> {
  let kept = byStore.get(store);
  if (!kept) byStore.set(store, (kept = new KeptPicks(store)));
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
