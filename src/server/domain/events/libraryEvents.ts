import type { LibraryChange, Store } from '../../ground/store/store';

/** One library change as GET /events sends it: the revision that committed it, its kind and ids. */
export interface LibraryEvent extends LibraryChange {
  revision: number;
}

/** What a subscriber that resumes gets: the events it missed, or `reset` (too old, or another library). */
export type Replay = { events: LibraryEvent[] } | { reset: true };

/**
 * The recent library changes, in commit order, in a bounded ring (the store
 * keeps only its revision), so a stream that reconnects with Last-Event-ID
 * gets what it missed; one older than the ring is told to re-read everything.
 */
export class LibraryEvents {
  private ring: LibraryEvent[] = [];
  /** Every change after this revision is in the ring. */
  private floor: number;
  private readonly listeners = new Set<(events: readonly LibraryEvent[], revision: number) => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: Store,
    private readonly capacity: number,
  ) {
    this.floor = store.revision;
    this.unsubscribe = store.onCommit((revision, changes) => this.committed(revision, changes));
  }

  get revision(): number {
    return this.store.revision;
  }

  private committed(revision: number, changes: readonly LibraryChange[]): void {
    const events = changes.map((c) => ({ revision, ...c }));
    this.ring.push(...events);
    if (this.ring.length > this.capacity) {
      const dropped = this.ring.splice(0, this.ring.length - this.capacity);
      // A revision partly dropped is no longer whole in the ring.
      this.floor = Math.max(this.floor, dropped[dropped.length - 1].revision);
      while (this.ring.length && this.ring[0].revision <= this.floor) this.ring.shift();
    }
    for (const listener of this.listeners) listener(events, revision);
  }

  /** What happened after revision `since`. */
  since(since: number): Replay {
    if (since < this.floor || since > this.store.revision) return { reset: true };
    return { events: this.ring.filter((e) => e.revision > since) };
  }

  /** Called with each committed batch's events (possibly none: a bookkeeping write). Returns the unsubscribe function. */
  subscribe(listener: (events: readonly LibraryEvent[], revision: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }
}
