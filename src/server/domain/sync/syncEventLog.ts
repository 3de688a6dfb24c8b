import type { Store, WriteTx } from '../../ground/store/store';
import { nowIso } from '../library/ids';

/**
 * The legacy sync event log (docs/CONTRACT-CHOICES.md, "Legacy sync"): table sync_events, one row per
 * observation, numbered by a counter kept in meta (so numbers never repeat,
 * even when old rows are pruned or a row is withdrawn).
 */
export type SyncEventKind =
  | 'file_removed'
  | 'file_added'
  | 'file_changed'
  | 'file_untracked'
  | 'recheck_started'
  | 'file_verified'
  | 'file_mismatch'
  | 'file_missing'
  | 'recheck_finished'
  | 'watch_error';

/** Kinds that count as sync errors in the status (errorCount, suspensionErrorCount). */
export const ERROR_KINDS: ReadonlySet<string> = new Set([
  'file_removed',
  'file_mismatch',
  'file_missing',
  'watch_error',
]);

export interface NewSyncEvent {
  kind: SyncEventKind;
  bookmd5?: string;
  path?: string;
  details?: Record<string, unknown>;
}

export interface SyncEvent {
  sequence: number;
  kind: string;
  bookmd5?: string;
  path?: string;
  at: string;
  details: Record<string, unknown>;
}

/** Rows kept; older ones are pruned (readers below the pruned mark get historyTruncated). */
export const SYNC_EVENT_RETENTION = 10_000;

const LAST = 'sync_last_seq';
const PRUNED = 'sync_pruned_through';
const ERRORS = 'sync_error_count';

const metaNumber = (db: Pick<Store, 'get'>, key: string) =>
  Number(db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value ?? 0);
const setMeta = (tx: WriteTx, key: string, value: number) =>
  tx.run('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)', [key, String(value)]);

export class SyncEventLog {
  constructor(private readonly store: Store) {}

  get lastSequence(): number {
    return metaNumber(this.store, LAST);
  }

  /** Events at or below this were pruned. */
  get prunedThrough(): number {
    return metaNumber(this.store, PRUNED);
  }

  /** Errors ever logged (pruning does not lower it). */
  get errorCount(): number {
    return metaNumber(this.store, ERRORS);
  }

  /** Appends inside a caller's transaction; returns the sequence numbers given. */
  appendTx(tx: WriteTx, events: NewSyncEvent[]): number[] {
    let seq = metaNumber(tx, LAST);
    let errors = 0;
    const at = nowIso();
    const seqs: number[] = [];
    for (const e of events) {
      seq++;
      seqs.push(seq);
      if (ERROR_KINDS.has(e.kind)) errors++;
      tx.run('INSERT INTO sync_events(seq, kind, bookmd5, data, at) VALUES (?, ?, ?, ?, ?)', [
        seq,
        e.kind,
        e.bookmd5 ?? null,
        JSON.stringify({ path: e.path, details: e.details ?? {} }),
        at,
      ]);
    }
    setMeta(tx, LAST, seq);
    if (errors) setMeta(tx, ERRORS, metaNumber(tx, ERRORS) + errors);
    const count = tx.get<{ n: number }>('SELECT count(*) AS n FROM sync_events')?.n ?? 0;
    if (count > SYNC_EVENT_RETENTION) this.pruneTx(tx, SYNC_EVENT_RETENTION);
    return seqs;
  }

  async append(events: NewSyncEvent[]): Promise<number[]> {
    if (!events.length) return [];
    return this.store.write((tx) => this.appendTx(tx, events));
  }

  /** Keeps the newest `keep` rows. */
  pruneTx(tx: WriteTx, keep: number): void {
    const cut = tx.get<{ seq: number }>('SELECT seq FROM sync_events ORDER BY seq DESC LIMIT 1 OFFSET ?', [keep]);
    if (!cut) return;
    tx.run('DELETE FROM sync_events WHERE seq <= ?', [cut.seq]);
    setMeta(tx, PRUNED, Math.max(cut.seq, metaNumber(tx, PRUNED)));
  }

  /**
   * One page after a cursor. lastSequence is where to continue; it moves past
   * sequence numbers that hold no event (cursorAdvancedPastGap) so a client
   * never loops on an empty tail.
   */
  read(afterSequence: number, limit: number) {
    const last = this.lastSequence;
    const pruned = this.prunedThrough;
    if (afterSequence > last) {
      return {
        events: [] as SyncEvent[],
        lastSequence: last,
        hasMore: false,
        historyTruncated: false,
        cursorAdvancedPastGap: false,
        cursorAhead: true,
      };
    }
    const rows = this.store.all<{ seq: number; kind: string; bookmd5: string | null; data: string | null; at: string }>(
      'SELECT seq, kind, bookmd5, data, at FROM sync_events WHERE seq > ? ORDER BY seq LIMIT ?',
      [afterSequence, limit + 1],
    );
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const events = page.map(toEvent);
    let lastSequence = events.length ? events[events.length - 1].sequence : afterSequence;
    let cursorAdvancedPastGap = false;
    if (!hasMore && lastSequence < last) {
      // Numbers up to `last` hold no event (withdrawn or pruned): skip them once.
      lastSequence = last;
      cursorAdvancedPastGap = true;
    }
    return {
      events,
      lastSequence,
      hasMore,
      historyTruncated: afterSequence < pruned,
      cursorAdvancedPastGap,
      cursorAhead: false,
    };
  }

  /** The latest file-state event of each document, for the inventory and the status. */
  latestFileKinds(): Map<string, string> {
    const rows = this.store.all<{ bookmd5: string; kind: string }>(
      `SELECT e.bookmd5, e.kind FROM sync_events e JOIN (
         SELECT bookmd5, max(seq) AS seq FROM sync_events
         WHERE bookmd5 IS NOT NULL AND kind IN ('file_removed', 'file_added', 'file_changed', 'file_verified', 'file_mismatch', 'file_missing')
         GROUP BY bookmd5) m ON m.seq = e.seq`,
    );
    return new Map(rows.map((r) => [r.bookmd5, r.kind]));
  }

  /** Errors since the last recheck started (the current cycle). */
  errorsSince(seq: number): number {
    const kinds = [...ERROR_KINDS];
    return (
      this.store.get<{ n: number }>(
        `SELECT count(*) AS n FROM sync_events WHERE seq > ? AND kind IN (${kinds.map(() => '?').join(', ')})`,
        [seq, ...kinds],
      )?.n ?? 0
    );
  }

  lastOfKind(kind: string): SyncEvent | undefined {
    const r = this.store.get<{ seq: number; kind: string; bookmd5: string | null; data: string | null; at: string }>(
      'SELECT seq, kind, bookmd5, data, at FROM sync_events WHERE kind = ? ORDER BY seq DESC LIMIT 1',
      [kind],
    );
    return r && toEvent(r);
  }
}

function toEvent(r: { seq: number; kind: string; bookmd5: string | null; data: string | null; at: string }): SyncEvent {
  const data = r.data ? (JSON.parse(r.data) as { path?: string; details?: Record<string, unknown> }) : {};
  return {
    sequence: r.seq,
    kind: r.kind,
    ...(r.bookmd5 ? { bookmd5: r.bookmd5 } : {}),
    ...(data.path ? { path: data.path } : {}),
    at: r.at,
    details: data.details ?? {},
  };
}
