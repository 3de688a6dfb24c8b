import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { BridgeError, insufficientStorage, isNoSpace } from '../errors';
import { CheckpointFile, type CheckpointWrite } from './checkpointFile';
import { GroupCommit, type Row, type WriteTx } from './groupCommit';
import { JournalWriter, type SqlParam } from './journal';
import { replayJournal } from './journalRecovery';
import { RowChanges, type LibraryChange } from './rowChanges';
import type { RecoveryReport } from './recoveryReport';
import { migrations } from './schema';
import { loadSqlite, queryAll } from './sqlite';

export type { Row, SqlValue, WriteTx } from './groupCommit';
export type { ChangeKind, LibraryChange } from './rowChanges';

export interface StoreOptions {
  /** Checkpoint when the journal passes this many bytes. */
  checkpointBytes?: number;
  /** Checkpoint after this long without writes (ms). 0 disables the idle checkpoint. */
  idleCheckpointMs?: number;
}

export type { RecoveryReport } from './recoveryReport';

/**
 * The library database: sql.js in memory, made durable by a write journal
 * (fsynced before a write resolves) and periodic checkpoints of the whole
 * database (docs/ARCHITECTURE.md, "The write path"; docs/DURABILITY.md).
 */
export class Store {
  private commits!: GroupCommit;
  private idleTimer: NodeJS.Timeout | undefined;
  private checkpointing: Promise<void> | undefined;
  private closed = false;
  private readonly commitListeners = new Set<(revision: number, changes: readonly LibraryChange[]) => void>();
  /** What each batch changed, for GET /events (set up after the migrations, which change no library row). */
  private rowChanges: RowChanges | undefined;
  /** What the last checkpoint cost, for diagnostics and the bench. */
  /** What the last checkpoint cost (exportMs is the part that holds this thread), for diagnostics and the bench. */
  lastCheckpoint: ({ exportMs: number; writeMs: number; totalMs: number; bytes: number } & CheckpointWrite) | undefined;

  private constructor(
    private db: Database,
    private readonly journal: JournalWriter,
    private readonly dbPath: string,
    private readonly file: CheckpointFile,
    private readonly opts: Required<StoreOptions>,
    readonly recovery: RecoveryReport,
  ) {}

  static async open(dir: string, options: StoreOptions = {}): Promise<Store> {
    const SQL = await loadSqlite();
    const dbPath = join(dir, 'library.db');
    const journalPath = join(dir, 'library.journal');
    const { file, bytes, staleRedoKeptAs } = CheckpointFile.open(dbPath);
    const db = bytes ? new SQL.Database(bytes) : new SQL.Database();
    const checkpointSeq = Number(metaValue(db, 'journal_seq') ?? 0);

    // Damage is resynchronised over and kept aside; a torn tail is cut off so new records follow the last intact one.
    const replay = replayJournal(db, journalPath, checkpointSeq);
    const seq = replay.seq;
    const journal = new JournalWriter(journalPath, replay.truncateTo);
    const store = new Store(
      db,
      journal,
      dbPath,
      file,
      { checkpointBytes: options.checkpointBytes ?? 32 * 1024 * 1024, idleCheckpointMs: options.idleCheckpointMs ?? 5000 },
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
    store.commits = new GroupCommit(db, journal, seq, (e) => journalFailure(e, dir), (revision) => store.acknowledged(revision));
    await store.migrate();
    store.rowChanges = new RowChanges(db);
    return store;
  }

  get schemaVersion(): number {
    return Number(metaValue(this.db, 'schema_version') ?? 0);
  }

  private async migrate(): Promise<void> {
    const hasMeta = this.get(`SELECT name FROM sqlite_master WHERE type='table' AND name='meta'`);
    const current = hasMeta ? this.schemaVersion : 0;
    for (const m of migrations) {
      if (m.version <= current) continue;
      await this.write((tx) => {
        for (const stmt of splitStatements(m.sql)) tx.run(stmt);
        tx.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)`, [String(m.version)]);
      });
    }
  }

  /** Read outside a transaction. */
  get<T = Row>(sql: string, params: SqlParam[] = []): T | undefined {
    return this.all<T>(sql, params)[0];
  }

  all<T = Row>(sql: string, params: SqlParam[] = []): T[] {
    return queryAll<T>(this.db, sql, params);
  }

  /**
   * Runs `fn` in one transaction (synchronously: no awaits inside) and
   * resolves once its statements are fsynced to the journal. If `fn` throws,
   * the transaction rolls back and nothing is journaled. If the journal
   * cannot be written, the write is undone in memory before it is answered
   * (507 for a full disk, else 503): it never becomes visible or checkpointed,
   * and the next write tries the journal again.
   */
  write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const rows = this.rowChanges;
    if (!rows) return this.commits.write(fn);
    return this.commits.write((tx) => {
      const mark = rows.mark();
      try {
        return fn(tx);
      } catch (e) {
        rows.rollback(mark);
        throw e;
      }
    });
  }

  /** Increases with every acknowledged write: a cheap "has anything changed" check for views and long polls. */
  get revision(): number {
    return this.commits.revision;
  }

  /**
   * Called after each acknowledged (fsynced) batch with the new revision and
   * the library rows it changed, by kind and id. Returns the unsubscribe function.
   */
  onCommit(listener: (revision: number, changes: readonly LibraryChange[]) => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  private acknowledged(revision: number): void {
    const changes = this.rowChanges?.take() ?? [];
    for (const listener of this.commitListeners) listener(revision, changes);
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

  /**
   * Folds the database into library.db and drops the journal records it now
   * holds. Only the export runs on this thread; the pages that changed are
   * found and written (checkpointFile.ts) between requests and on libuv's
   * pool while requests and writes go on. The checkpoint records the last
   * journal sequence it contains, so a crash anywhere replays nothing twice
   * and loses nothing: until library.db holds the new pages (or its redo
   * file does), the old file and the whole journal are there; after, replay
   * skips what the file holds.
   */
  checkpoint(): Promise<void> {
    this.checkpointing ??= this.doCheckpoint().finally(() => (this.checkpointing = undefined));
    return this.checkpointing;
  }

  private async doCheckpoint(): Promise<void> {
    // Between batches memory holds exactly the acknowledged writes, all in the journal's first `upTo` bytes.
    const snap = await this.commits.atIdle(() => {
      if (this.journal.bytes === 0 && existsSync(this.dbPath)) return undefined;
      const started = performance.now();
      this.db.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('journal_seq', ?)`, [String(this.commits.revision)]);
      return { upTo: this.journal.bytes, data: this.db.export(), started, exported: performance.now() };
    });
    if (!snap) return;
    const { upTo, data, started, exported } = snap;
    const wrote = await this.file.write(data);
    const written = performance.now();
    // Records appended while the file was written stay; the rest goes (between batches: no flush in flight).
    await this.commits.atIdle(() => this.journal.rebase(upTo));
    this.lastCheckpoint = { exportMs: exported - started, writeMs: written - exported, totalMs: performance.now() - started, bytes: data.length, ...wrote };
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
    await this.checkpoint();
  }

  /** Size of the journal not yet folded into a checkpoint. */
  get journalBytes(): number {
    return this.journal.bytes;
  }

  /** Exposed for diagnostics and the crash test. */
  integrityCheck(): string {
    return String(this.get<{ integrity_check: string }>('PRAGMA integrity_check')?.integrity_check);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.idleTimer);
    await this.commits.settled();
    await this.checkpointing?.catch(() => undefined);
    // On a full disk the last checkpoint cannot be written: the journal still holds every write, so closing goes on.
    await this.checkpoint().catch((e) => {
      if (!isNoSpace(e)) throw e;
    });
    this.closed = true;
    this.journal.close();
    this.db.close();
  }
}

/** What the writes of a batch the journal could not take are answered with. Nothing of them was kept. */
async function journalFailure(cause: unknown, dir: string): Promise<BridgeError> {
  const errno = (cause as { code?: string })?.code;
  if (isNoSpace(cause)) {
    const free = await statfs(dir).then((s) => s.bavail * s.bsize, () => undefined);
    return insufficientStorage('Saving to the library', free, { errno });
  }
  return new BridgeError(
    'STORE_UNAVAILABLE',
    503,
    `The library journal could not be written (${(cause as Error)?.message ?? cause}). Nothing was saved; retry: the next write tries the journal again. Reads still work.`,
    errno ? { errno } : undefined,
    true,
  );
}

function metaValue(db: Database, key: string): string | undefined {
  try {
    const res = db.exec('SELECT value FROM meta WHERE key = ?', [key]);
    return res[0]?.values[0]?.[0] as string | undefined;
  } catch {
    return undefined; // no meta table yet
  }
}

/** Splits a migration script into statements (no semicolons inside our literals). */
function splitStatements(script: string): string[] {
  return script
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
}
