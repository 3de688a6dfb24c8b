import { existsSync } from 'node:fs';
import type { Database } from 'sql.js';
import type { CheckpointFile } from './checkpointFile';
import { buildReplicaOffThread } from './checkpointReplica';
import type { GroupCommit } from './groupCommit';
import type { JournalWriter } from './journalWriter';
import { queryAll } from './sqlite';
import type { CheckpointStats } from './storeOptions';

export interface CheckpointOptions {
  /** Export on the store's thread whatever the size (close: nothing waits on this thread then). */
  onThisThread?: boolean;
  /** Even with an empty journal (compact: VACUUM's result is in memory only). */
  force?: boolean;
}

/**
 * Folds the store's database into library.db and drops the journal records it now holds (docs/DURABILITY.md,
 * "Checkpoint"). The image is exported on the store's thread or, for a large database, built by a worker from
 * library.db and the journal (checkpointReplica.ts), or from the journal alone while there is no library.db yet
 * (a new library's first checkpoint, often right after a large import), while the store's thread only notes where
 * the journal ends. The pages that changed are found and written (checkpointFile.ts) between requests and on
 * libuv's pool. The checkpoint records the last journal sequence it contains, so a crash anywhere replays nothing
 * twice and loses nothing.
 */
export class Checkpointer {
  private running: Promise<void> | undefined;
  /** Ends an off-thread checkpoint's worker when the store closes. */
  private readonly closing = new AbortController();
  /** What the last checkpoint cost, for diagnostics and the bench. */
  last: CheckpointStats | undefined;

  constructor(
    private readonly db: Database,
    private readonly journal: JournalWriter,
    private readonly commits: GroupCommit,
    private readonly file: CheckpointFile,
    private readonly dbPath: string,
    private readonly offThreadBytes: number,
  ) {}

  /** One checkpoint at a time: a call while one runs gets that one. */
  run(opts: CheckpointOptions = {}): Promise<void> {
    this.running ??= this.checkpoint(opts).finally(() => (this.running = undefined));
    return this.running;
  }

  /** The checkpoint under way, if any. */
  get inFlight(): Promise<void> | undefined {
    return this.running;
  }

  /** The store is closing: a worker still replaying is ended, and its checkpoint falls back to an export here. */
  endWorker(): void {
    this.closing.abort();
  }

  private async checkpoint(opts: CheckpointOptions, offThreadFailure?: string): Promise<void> {
    // A replica starts from library.db known whole (not one a failed page write left unknown), or from nothing
    // when there is no library.db yet: then the journal holds every write from the first migration on.
    const fresh = !existsSync(this.dbPath);
    const onThisThread = opts.onThisThread || !(fresh || (await this.file.isWhole()));
    // Between batches memory holds exactly the acknowledged writes, all in the journal's first `upTo` bytes.
    const snap = await this.commits.atIdle(() => {
      if (this.journal.bytes === 0 && existsSync(this.dbPath) && !opts.force) return undefined;
      const started = performance.now();
      const upTo = this.journal.bytes;
      const seq = this.commits.revision;
      // (Only checkpoints write library.db, one at a time: whether it exists cannot have changed since.)
      if (!onThisThread && this.buildsOffThread())
        return { upTo, seq, started, held: performance.now(), data: undefined };
      this.db.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('journal_seq', ?)`, [String(seq)]);
      const data = this.db.export();
      return { upTo, seq, started, held: performance.now(), data };
    });
    if (!snap) return;
    const { upTo, seq, started, held } = snap;
    let image: { data: Uint8Array; crcs?: Uint32Array };
    if (snap.data) image = { data: snap.data };
    else {
      try {
        image = await buildReplicaOffThread(
          { dbPath: fresh ? undefined : this.dbPath, journalPath: this.journal.path, upTo, seq },
          this.closing.signal,
        );
      } catch (e) {
        // Nothing was written: library.db and the journal are as they were, and memory holds the truth.
        return this.checkpoint({ ...opts, onThisThread: true }, e instanceof Error ? e.message : String(e));
      }
    }
    const exported = performance.now();
    const wrote = await this.file.write(image.data, image.crcs);
    const written = performance.now();
    // Records appended while the file was written stay; the rest goes (between batches: no flush in flight).
    await this.commits.atIdle(() => this.journal.rebase(upTo));
    this.last = {
      holdMs: held - started,
      exportMs: exported - started,
      writeMs: written - exported,
      totalMs: performance.now() - started,
      bytes: image.data.length,
      builtOffThread: !snap.data,
      ...(offThreadFailure === undefined ? {} : { offThreadFailure }),
      ...wrote,
    };
  }

  /** Large enough to be checkpointed by a worker. */
  private buildsOffThread(): boolean {
    const [{ page_count: pages }] = queryAll<{ page_count: number }>(this.db, 'PRAGMA page_count');
    const [{ page_size: size }] = queryAll<{ page_size: number }>(this.db, 'PRAGMA page_size');
    return pages * size >= this.offThreadBytes;
  }
}
