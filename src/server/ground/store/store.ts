import { join } from 'node:path';
import type { Database } from 'sql.js';
import { isNoSpace } from '../../errors';
import { CheckpointFile } from './checkpointFile';
import { Checkpointer, type CheckpointOptions } from './checkpointer';
import { GroupCommit, type Row, type WriteStep, type WriteTx } from './groupCommit';
import type { SqlParam } from './journal';
import { JournalWriter } from './journalWriter';
import { journalFailure } from './journalFailure';
import { replayJournal } from './journalRecovery';
import { RowChanges, type CardIndexChange, type ChangeKind, type LibraryChange } from './rowChanges';
import type { RecoveryReport } from './recoveryReport';
import { metaValue, runMigrations, schemaVersionOf } from './schemaUpgrade';
import { openDatabase, queryAll } from './sqlite';
import type { CheckpointStats, StoreOptions } from './storeOptions';

export type { Row, SqlValue, WriteStep, WriteTx } from './groupCommit';
export type { CardIndexChange, ChangeKind, LibraryChange } from './rowChanges';
export type { CheckpointStats, StoreOptions } from './storeOptions';
export type { RecoveryReport } from './recoveryReport';

const NO_WRITES: ReadonlyMap<string, number> = new Map();

type CommitListener = (
  revision: number,
  changes: readonly LibraryChange[],
  cardIndex: Readonly<CardIndexChange>,
) => void;

/**
 * The library database: sql.js in memory, made durable by a write journal
 * (fsynced before a write resolves) and periodic checkpoints of the whole
 * database (docs/ARCHITECTURE.md, "The write path"; docs/DURABILITY.md).
 */
export class Store {
  private commits!: GroupCommit;
  private idleTimer: NodeJS.Timeout | undefined;
  private checkpoints!: Checkpointer;
  private closed = false;
  private readonly commitListeners = new Set<CommitListener>();
  /** What each batch changed, for GET /events (set up after the migrations, which change no library row). */
  private rowChanges: RowChanges | undefined;
  private constructor(
    private db: Database,
    private readonly journal: JournalWriter,
    private readonly opts: Required<StoreOptions>,
    readonly recovery: RecoveryReport,
  ) {}

  static async open(dir: string, options: StoreOptions = {}): Promise<Store> {
    const dbPath = join(dir, 'library.db');
    const journalPath = join(dir, 'library.journal');
    const { file, bytes, staleRedoKeptAs } = CheckpointFile.open(dbPath);
    const db = await openDatabase(bytes);
    const checkpointSeq = Number(metaValue(db, 'journal_seq') ?? 0);

    // Damage is resynchronised over and kept aside; a torn tail is cut off so new records follow the last intact one.
    const replay = replayJournal(db, journalPath, checkpointSeq);
    const seq = replay.seq;
    const journal = new JournalWriter(journalPath, replay.truncateTo);
    const store = new Store(
      db,
      journal,
      {
        checkpointBytes: options.checkpointBytes ?? 32 * 1024 * 1024,
        idleCheckpointMs: options.idleCheckpointMs ?? 5000,
        offThreadCheckpointBytes: options.offThreadCheckpointBytes ?? 16 * 1024 * 1024,
      },
      {
        replayedRecords: replay.replayed,
        discardedTornBytes: replay.tornBytes,
        lostRecords: replay.lostRecords,
        failedRecords: replay.failedRecords,
        damagedBytes: replay.damagedBytes,
        ...(replay.keptAs === undefined ? {} : { keptAs: replay.keptAs }),
        ...(staleRedoKeptAs === undefined ? {} : { staleRedoKeptAs }),
        ...(replay.rewriteError === undefined ? {} : { rewriteError: replay.rewriteError }),
      },
    );
    store.commits = new GroupCommit(
      db,
      journal,
      seq,
      (e) => journalFailure(e, dir),
      (revision) => store.acknowledged(revision),
    );
    store.checkpoints = new Checkpointer(db, journal, store.commits, file, dbPath, store.opts.offThreadCheckpointBytes);
    await runMigrations(db, (fn) => store.write(fn));
    store.rowChanges = new RowChanges(db);
    return store;
  }

  get schemaVersion(): number {
    return schemaVersionOf(this.db);
  }

  /** Read outside a transaction. */
  get<T = Row>(sql: string, params: SqlParam[] = []): T | undefined {
    return this.all<T>(sql, params)[0];
  }

  all<T = Row>(sql: string, params: SqlParam[] = []): T[] {
    return queryAll<T>(this.db, sql, params);
  }

  /**
   * Runs `fn` in one transaction (synchronously: no awaits inside) and resolves once its statements are fsynced to
   * the journal. If `fn` throws, the transaction rolls back and nothing is journaled. If the journal cannot be
   * written, the write is undone in memory before it is answered (507 for a full disk, else 503), never visible
   * after nor checkpointed; the next write tries again.
   */
  write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return this.commits.write(this.forgettingOnThrow(fn));
  }

  /**
   * A write in steps, the event loop served between them, acknowledged whole or not at all (GroupCommit.writeSliced).
   * `unnoted`: its rows are too many to note one by one (RowChanges.pause); what it changed is announced as these
   * kinds, cut.
   */
  writeSliced<T>(step: WriteStep<T>, unnoted?: readonly ChangeKind[]): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const rows = this.rowChanges;
    if (!unnoted || !rows) return this.commits.writeSliced(this.forgettingOnThrow(step));
    let pausing = false;
    const resume = (failed = false) => {
      if (pausing) rows.resume(failed);
      pausing = false;
    };
    const paused: WriteStep<T> = (tx) => {
      if (!pausing) rows.pause(unnoted);
      pausing = true;
      let done: { value: T } | undefined;
      try {
        done = step(tx);
      } catch (e) {
        resume(true);
        throw e;
      }
      if (done) resume();
      return done;
    };
    // Also when the write is stopped between its steps (the store closing).
    return this.commits.writeSliced(this.forgettingOnThrow(paused)).finally(() => resume());
  }

  /** `fn`, whose changed rows (from its first call on: a sliced write's steps are one transaction) go if it throws. */
  private forgettingOnThrow<T>(fn: (tx: WriteTx) => T): (tx: WriteTx) => T {
    const rows = this.rowChanges;
    let mark: number | undefined;
    return (tx) => {
      mark ??= rows?.mark();
      try {
        return fn(tx);
      } catch (e) {
        if (mark !== undefined) rows?.rollback(mark);
        throw e;
      }
    };
  }

  /** Increases with every acknowledged write: a cheap "has anything changed" check for views and long polls. */
  get revision(): number {
    return this.commits.revision;
  }

  /** Same number, same acknowledged rows; undefined while a write is in flight (GroupCommit.quietMark). */
  get quietMark(): number | undefined {
    return this.commits.quietMark;
  }

  /** Row changes per table since the store opened, failed writes' included (RowChanges.writesByTable): read only. */
  get writesByTable(): ReadonlyMap<string, number> {
    return this.rowChanges?.writesByTable ?? NO_WRITES;
  }

  /** The rowids of the topics rows written since writesByTable counted `count` of them (undefined: too many to say). */
  topicsWrittenSince(count: number): number[] | undefined {
    return this.rowChanges ? this.rowChanges.topicsWrittenSince(count) : undefined;
  }

  /**
   * Called after each acknowledged (fsynced) batch with the new revision and the library rows it changed, by kind and
   * id, and the card index rows it wrote or deleted. Returns the unsubscribe function.
   */
  onCommit(listener: CommitListener): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  private acknowledged(revision: number): void {
    const { changes, cardIndex } = this.rowChanges?.take() ?? { changes: [], cardIndex: { docids: [], all: false } };
    for (const listener of this.commitListeners) listener(revision, changes, cardIndex);
    this.afterWrite();
  }

  private afterWrite(): void {
    if (this.journal.bytes >= this.opts.checkpointBytes) {
      setImmediate(() => void this.checkpoint().catch(() => undefined));
      return;
    }
    if (this.opts.idleCheckpointMs > 0) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => void this.checkpoint().catch(() => undefined), this.opts.idleCheckpointMs);
      this.idleTimer.unref();
    }
  }

  /** Folds the database into library.db and drops the journal records it now holds (checkpointer.ts). */
  checkpoint(opts: CheckpointOptions = {}): Promise<void> {
    return this.checkpoints.run(opts);
  }

  /** What the last checkpoint cost, for diagnostics and the bench. */
  get lastCheckpoint(): CheckpointStats | undefined {
    return this.checkpoints.last;
  }

  /**
   * Gives back the space of deleted rows (VACUUM), then checkpoints so
   * library.db shrinks on disk too. Used once after a data migration moved
   * page text and snapshot contents out. VACUUM changes no row, so nothing
   * is journaled: a crash before the checkpoint only leaves the larger file.
   */
  async compact(): Promise<void> {
    await this.commits.atIdle(() => {
      this.db.exec('VACUUM');
      this.db.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('compacted_at', ?)`, [new Date().toISOString()]);
    });
    await this.checkpoints.inFlight?.catch(() => undefined);
    await this.checkpoint({ onThisThread: true, force: true });
  }

  /** Size of the journal not yet folded into a checkpoint. */
  get journalBytes(): number {
    return this.journal.bytes;
  }

  /** A stop is coming: a sliced write still running rolls back at its next step, and new ones are refused. */
  stopSlicedWrites(): void {
    this.commits.stopSliced();
  }

  /** Exposed for diagnostics and the crash test. */
  integrityCheck(): string {
    return String(this.get<{ integrity_check: string }>('PRAGMA integrity_check')?.integrity_check);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.idleTimer);
    this.commits.stopSliced();
    await this.commits.settled();
    // A worker still replaying is ended: the checkpoint goes on as an export here, and close's own then finds nothing left.
    this.checkpoints.endWorker();
    await this.checkpoints.inFlight?.catch(() => undefined);
    // On a full disk the last checkpoint cannot be written: the journal still holds every write, so closing goes on.
    await this.checkpoint({ onThisThread: true }).catch((e) => {
      if (!isNoSpace(e)) throw e;
    });
    this.closed = true;
    this.journal.close();
    this.db.close();
  }
}
