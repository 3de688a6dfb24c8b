import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { BridgeError } from '../errors';
import { CheckpointFile, type CheckpointWrite } from './checkpointFile';
import { JournalWriter, readJournal, type SqlParam } from './journal';
import { migrations } from './schema';
import { loadSqlite } from './sqlite';

export type SqlValue = string | number | null | Uint8Array;
export type Row = Record<string, SqlValue>;

/** Statements inside one write transaction. Reads see the transaction's own writes. */
export interface WriteTx {
  run(sql: string, params?: SqlParam[]): void;
  get<T = Row>(sql: string, params?: SqlParam[]): T | undefined;
  all<T = Row>(sql: string, params?: SqlParam[]): T[];
}

export interface StoreOptions {
  /** Checkpoint when the journal passes this many bytes. */
  checkpointBytes?: number;
  /** Checkpoint after this long without writes (ms). 0 disables the idle checkpoint. */
  idleCheckpointMs?: number;
}

export interface RecoveryReport {
  replayedRecords: number;
  discardedTornBytes: number;
}

/**
 * The library database: sql.js in memory, made durable by a write journal
 * (fsynced before a write resolves) and periodic checkpoints of the whole
 * database (DESIGN.md §3).
 */
export class Store {
  private seq = 0;
  private inWrite = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private checkpointing: Promise<void> | undefined;
  private closed = false;
  /** Set when the journal could not be written: memory is then ahead of disk, so no more writes are taken. */
  private broken: Error | undefined;
  private readonly commitListeners = new Set<(revision: number) => void>();
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
    const { file, bytes } = CheckpointFile.open(dbPath);
    const db = bytes ? new SQL.Database(bytes) : new SQL.Database();
    const checkpointSeq = Number(metaValue(db, 'journal_seq') ?? 0);

    const { records, validBytes, tornBytes } = readJournal(journalPath);
    let seq = checkpointSeq;
    let replayed = 0;
    for (const rec of records) {
      if (rec.seq <= checkpointSeq) continue;
      db.exec('BEGIN');
      for (const [sql, params] of rec.stmts) db.run(sql, params);
      db.exec('COMMIT');
      seq = rec.seq;
      replayed++;
    }
    // A torn tail is cut off so new records follow the last intact one.
    const journal = new JournalWriter(journalPath, tornBytes > 0 ? validBytes : undefined);
    const store = new Store(
      db,
      journal,
      dbPath,
      file,
      { checkpointBytes: options.checkpointBytes ?? 32 * 1024 * 1024, idleCheckpointMs: options.idleCheckpointMs ?? 5000 },
      { replayedRecords: replayed, discardedTornBytes: tornBytes },
    );
    store.seq = seq;
    await store.migrate();
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
    const stmt = this.db.prepare(sql);
    try {
      stmt.bind(params);
      const rows: T[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as T);
      return rows;
    } finally {
      stmt.free();
    }
  }

  /**
   * Runs `fn` in one transaction (synchronously: no awaits inside) and
   * resolves once its statements are fsynced to the journal. If `fn` throws,
   * the transaction rolls back and nothing is journaled.
   */
  async write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    if (this.closed) throw new Error('store is closed');
    if (this.inWrite) throw new Error('nested store.write');
    if (this.broken) throw storeUnavailable(this.broken);
    const stmts: Array<[string, SqlParam[]]> = [];
    const tx: WriteTx = {
      run: (sql, params = []) => {
        this.db.run(sql, params);
        stmts.push([sql, params]);
      },
      get: (sql, params) => this.get(sql, params),
      all: (sql, params) => this.all(sql, params),
    };
    this.inWrite = true;
    let result: T;
    try {
      this.db.exec('BEGIN');
      try {
        result = fn(tx);
        this.db.exec('COMMIT');
      } catch (e) {
        this.db.exec('ROLLBACK');
        throw e;
      }
    } finally {
      this.inWrite = false;
    }
    if (stmts.length === 0) return result;
    const seq = ++this.seq;
    const durable = this.journal.append({ seq, stmts });
    this.afterWrite();
    try {
      await durable;
    } catch (e) {
      this.broken = e as Error;
      throw storeUnavailable(this.broken);
    }
    for (const listener of this.commitListeners) listener(seq);
    return result;
  }

  /** Increases with every acknowledged write: a cheap "has anything changed" check for views and long polls. */
  get revision(): number {
    return this.seq;
  }

  /** Called after each acknowledged (fsynced) write with the new revision. Returns the unsubscribe function. */
  onCommit(listener: (revision: number) => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
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
    // Everything up to seq is durable in the journal's first `upTo` bytes.
    await this.journal.drain();
    if (this.journal.bytes === 0 && existsSync(this.dbPath)) return;
    const started = performance.now();
    this.db.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('journal_seq', ?)`, [String(this.seq)]);
    const upTo = this.journal.bytes;
    const data = this.db.export();
    const exported = performance.now();
    const wrote = await this.file.write(data);
    const written = performance.now();
    // Records appended while the file was written stay; the rest goes. The
    // check and the rebase run in one turn, so no flush can start between them.
    while (this.journal.busy) await this.journal.drain();
    this.journal.rebase(upTo);
    this.lastCheckpoint = { exportMs: exported - started, writeMs: written - exported, totalMs: performance.now() - started, bytes: data.length, ...wrote };
  }

  /**
   * Gives back the space of deleted rows (VACUUM), then checkpoints so
   * library.db shrinks on disk too. Used once after a data migration moved
   * page text and snapshot contents out. VACUUM changes no row, so nothing
   * is journaled: a crash before the checkpoint only leaves the larger file.
   */
  async compact(): Promise<void> {
    if (this.inWrite) throw new Error('compact inside a write');
    await this.journal.drain();
    this.db.exec('VACUUM');
    this.db.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('compacted_at', ?)`, [new Date().toISOString()]);
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
    await this.checkpointing;
    await this.checkpoint();
    this.closed = true;
    this.journal.close();
    this.db.close();
  }
}

const storeUnavailable = (cause: Error) =>
  new BridgeError('STORE_UNAVAILABLE', 503, `The library journal cannot be written (${cause.message}); writes are refused until the bridge restarts. Reads still work.`);

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
