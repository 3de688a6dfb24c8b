import { watch, type FSWatcher } from 'node:fs';
import type { Store } from '../../ground/store/store';
import { libraryFiles } from '../library/libraryFiles';
import { libraryRows, relPath, statFile, type FileStat } from './libraryObservation';
import type { NewSyncEvent, SyncEventLog } from './syncEventLog';

/** Quiet time after the last file-system notice before the library is compared with the database. */
const DEBOUNCE_MS = 250;
/** A new untracked file must stay untracked this long before it is logged (an upload renames its file in before its row commits). */
const UNTRACKED_SETTLE_MS = 1000;

const GONE = new Set(['file_removed', 'file_missing']);

/**
 * Watches <dataDir>/library and logs what changed behind the bridge's back:
 * each notice (debounced) compares the documents table with the files on
 * disk. The bridge's own uploads and deletes keep row and file in step, so
 * they log nothing; a file that vanishes, comes back, changes, or appears
 * untracked does.
 */
export class LibraryWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly known = new Map<string, FileStat>();
  /** Untracked paths: when first seen, and whether logged. */
  private readonly untracked = new Map<string, { since: number; logged: boolean }>();
  private first = true;
  watching = false;

  constructor(
    private readonly store: Store,
    private readonly libraryDir: string,
    private readonly log: SyncEventLog,
    private readonly closing: AbortSignal,
  ) {}

  start(): void {
    if (this.closing.aborted) return;
    try {
      this.watcher = watch(this.libraryDir, { recursive: true }, () => this.schedule(DEBOUNCE_MS));
      this.watcher.on('error', (e) => {
        this.watching = false;
        void this.log.append([{ kind: 'watch_error', details: { message: e.message } }]).catch(() => undefined);
      });
      this.watching = true;
    } catch {
      this.watching = false;
    }
    this.closing.addEventListener('abort', () => this.stop(), { once: true });
    // The first pass takes the baseline, and logs what changed while the bridge was not running.
    this.schedule(0);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
    this.watching = false;
  }

  /** Resolves once every pending comparison has run (tests, and the recheck before it starts). */
  settled(): Promise<void> {
    return this.chain;
  }

  private schedule(ms: number): void {
    if (this.closing.aborted) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.chain = this.chain.then(() => this.reconcile()).catch(() => undefined);
    }, ms);
    this.timer.unref?.();
  }

  private async reconcile(): Promise<void> {
    if (this.closing.aborted) return;
    const rows = libraryRows(this.store);
    const latest = this.first ? this.log.latestFileKinds() : undefined;
    const events: NewSyncEvent[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.bookmd5);
      const now = statFile(this.libraryDir, row);
      const path = relPath(row);
      const prev = this.known.get(row.bookmd5);
      this.known.set(row.bookmd5, now);
      if (!prev) {
        // First sight (start, or a new upload): judged against the log, so a restart does not log a change twice.
        const last = latest?.get(row.bookmd5) ?? this.latestKind(row.bookmd5);
        if (!now.exists && !GONE.has(last ?? ''))
          events.push({ kind: 'file_removed', bookmd5: row.bookmd5, path, details: { detectedAt: 'startup' } });
        else if (now.exists && GONE.has(last ?? ''))
          events.push({
            kind: 'file_added',
            bookmd5: row.bookmd5,
            path,
            details: { restored: true, size: now.size, sizeMatchesRecord: now.size === row.size },
          });
        else if (now.exists && now.size !== row.size && last !== 'file_changed' && last !== 'file_mismatch') {
          events.push({
            kind: 'file_changed',
            bookmd5: row.bookmd5,
            path,
            details: { recordedSize: row.size, size: now.size, detectedAt: 'startup' },
          });
        }
        continue;
      }
      if (prev.exists && !now.exists) events.push({ kind: 'file_removed', bookmd5: row.bookmd5, path, details: {} });
      else if (!prev.exists && now.exists)
        events.push({
          kind: 'file_added',
          bookmd5: row.bookmd5,
          path,
          details: { restored: true, size: now.size, sizeMatchesRecord: now.size === row.size },
        });
      else if (now.exists && (prev.size !== now.size || prev.mtimeMs !== now.mtimeMs)) {
        events.push({
          kind: 'file_changed',
          bookmd5: row.bookmd5,
          path,
          details: { recordedSize: row.size, sizeBefore: prev.size, size: now.size },
        });
      }
    }
    // Rows deleted through the bridge: forgotten silently.
    for (const id of [...this.known.keys()]) if (!seen.has(id)) this.known.delete(id);
    events.push(...this.untrackedEvents(new Set(rows.map(relPath))));
    this.first = false;
    if (events.length && !this.closing.aborted) await this.log.append(events).catch(() => undefined);
  }

  private latestKind(bookmd5: string): string | undefined {
    return this.store.get<{ kind: string }>(
      `SELECT kind FROM sync_events WHERE bookmd5 = ? AND kind IN ('file_removed', 'file_added', 'file_changed', 'file_verified', 'file_mismatch', 'file_missing') ORDER BY seq DESC LIMIT 1`,
      [bookmd5],
    )?.kind;
  }

  private untrackedEvents(tracked: Set<string>): NewSyncEvent[] {
    const events: NewSyncEvent[] = [];
    const now = Date.now();
    const present = new Set<string>();
    let pending = false;
    for (const file of libraryFiles(this.libraryDir)) {
      if (tracked.has(file)) continue;
      present.add(file);
      const u = this.untracked.get(file);
      // Files already there at start are the baseline, not news.
      if (!u) this.untracked.set(file, { since: now, logged: this.first });
      else if (!u.logged && now - u.since >= UNTRACKED_SETTLE_MS) {
        u.logged = true;
        events.push({ kind: 'file_added', path: file, details: { tracked: false } });
      }
      const entry = this.untracked.get(file)!;
      if (!entry.logged) pending = true;
    }
    for (const file of [...this.untracked.keys()]) if (!present.has(file)) this.untracked.delete(file);
    if (pending) this.schedule(UNTRACKED_SETTLE_MS);
    return events;
  }
}
