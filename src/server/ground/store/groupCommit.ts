import type { Database } from 'sql.js';
import { BridgeError } from '../../errors';
import type { JournalWriter } from './journal';
import { RecordEncoder, type SqlParam } from './recordEncoder';
import { queryAll, runStatement } from './sqlite';

export type SqlValue = string | number | null | Uint8Array;
export type Row = Record<string, SqlValue>;

/** Statements inside one write transaction. Reads see the transaction's own writes. */
export interface WriteTx {
  run(sql: string, params?: SqlParam[]): void;
  get<T = Row>(sql: string, params?: SqlParam[]): T | undefined;
  all<T = Row>(sql: string, params?: SqlParam[]): T[];
}

/** Below this a batch's buffers are joined into one write; above, each is written as it is (no copy). */
const JOIN_BELOW = 1024 * 1024;

interface Batch {
  /** The batch's records, each as its buffers, in order. */
  records: Buffer[];
  bytes: number;
  /** The first record's payload bytes already on file (a sliced write's spill): records[0] is its header alone. */
  spilled: number;
  waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }>;
}

/** One slice of a sliced write: its answer once done, else `undefined` (run me again). */
export type WriteStep<T> = (tx: WriteTx) => { value: T } | undefined;

/** A write waiting for the batch in flight; a sliced one opens its own transaction, so it waits for an empty one. */
interface Deferred {
  sliced: boolean;
  run: () => void;
}

/**
 * The write pipeline: memory never runs ahead of the journal by more than the
 * one batch being fsynced, and that batch is a single open SQLite transaction.
 *
 * A write that arrives while no batch is in flight runs at once (BEGIN), and
 * its record goes to the journal. Writes that arrive during that fsync wait
 * (they would have waited for it anyway: they are the next group commit), then
 * run together in the next transaction, one SAVEPOINT each so a write that
 * throws undoes only itself. When the batch is on disk the transaction
 * COMMITs and its writes are answered; when the append fails it ROLLs BACK, so
 * memory again equals what the journal holds, and every write of the batch is
 * answered with the failure. Nothing after a failed batch ever ran on top of it.
 *
 * Between batches (no transaction open, nothing in flight) `atIdle` tasks run:
 * the checkpoint exports and rebases the journal there, so it only ever sees
 * acknowledged writes.
 */
export class GroupCommit {
  /** Sequence of the last write applied in memory (journal record seq). */
  private seq: number;
  /** Sequence of the last acknowledged (fsynced) write. */
  private durable: number;
  private batch: Batch | undefined;
  private flushing = false;
  private inWrite = false;
  /** A sliced write holds the transaction between its steps: other writes wait, as during an fsync. */
  private slicing = false;
  /** Set by stopSliced: a sliced write still running rolls back at its next step, so a stop is not held by it. */
  private stopping = false;
  private deferred: Deferred[] = [];
  private idleTasks: Array<() => void> = [];
  /** Writes applied in memory, rolled back ones included: never goes back, unlike seq. */
  private applied = 0;

  constructor(
    private readonly db: Database,
    private readonly journal: JournalWriter,
    seq: number,
    /** Turns a failed append into the error every write of the batch gets. */
    private readonly failure: (e: unknown) => Promise<Error>,
    /** Called once per acknowledged batch, after its writes resolved. */
    private readonly onDurable: (revision: number) => void,
  ) {
    this.seq = this.durable = seq;
  }

  /** The last acknowledged write's sequence. */
  get revision(): number {
    return this.durable;
  }

  /**
   * A number that changes whenever memory may have changed, or undefined while
   * a write is applied but not yet acknowledged: equal marks mean the same,
   * acknowledged rows (a write that failed and was rolled back still moved it).
   */
  get quietMark(): number | undefined {
    return this.batch || this.flushing || this.inWrite || this.slicing || this.deferred.length
      ? undefined
      : this.applied;
  }

  write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    if (this.inWrite) return Promise.reject(new Error('nested store.write'));
    return new Promise<T>((resolve, reject) => {
      const apply = () => this.apply(fn, resolve, reject);
      if (this.flushing || this.slicing) this.deferred.push({ sliced: false, run: apply });
      else {
        apply();
        this.startFlush();
      }
    });
  }

  private apply<T>(fn: (tx: WriteTx) => T, resolve: (v: T) => void, reject: (e: unknown) => void): void {
    const db = this.db;
    const record = new RecordEncoder(this.seq + 1);
    const tx = this.txOf(record);
    const first = !this.batch;
    db.exec(first ? 'BEGIN' : 'SAVEPOINT w');
    this.inWrite = true;
    let result: T;
    try {
      result = fn(tx);
    } catch (e) {
      db.exec(first ? 'ROLLBACK' : 'ROLLBACK TO w; RELEASE w');
      reject(e);
      return;
    } finally {
      this.inWrite = false;
    }
    if (!first) db.exec('RELEASE w');
    this.enqueue(record, first, () => resolve(result), reject);
  }

  /** Statements that run and are encoded as they run: the record is held once, as bytes, and params are not kept. */
  private txOf(record: RecordEncoder): WriteTx {
    return {
      run: (sql, params = []) => {
        runStatement(this.db, sql, params);
        record.statement(sql, params);
      },
      get: (sql, params) => this.all(sql, params)[0] as never,
      all: (sql, params) => this.all(sql, params),
    };
  }

  /** An applied write's record joins the batch (answered once it is fsynced); one that wrote nothing is answered now. */
  private enqueue(record: RecordEncoder, first: boolean, resolve: () => void, reject: (e: unknown) => void): void {
    if (record.statements === 0) {
      record.dropSpill();
      if (first) this.db.exec('COMMIT');
      resolve();
      return;
    }
    this.applied++;
    const buffers = record.finish();
    // A spilled record only opens a batch (a sliced write runs with none open): its payload follows its header on file.
    if (this.batch && record.spilledBytes) throw new Error('a spilled record joined a batch');
    const batch = (this.batch ??= { records: [], bytes: 0, spilled: record.spilledBytes, waiters: [] });
    this.seq++;
    for (const b of buffers) {
      batch.records.push(b);
      batch.bytes += b.length;
    }
    batch.waiters.push({ resolve, reject });
  }

  /**
   * A write too long for one turn of the event loop: `step` runs again and
   * again, the loop served between steps, until it answers a value. Its steps
   * are one transaction and one journal record, so it is acknowledged whole or
   * not at all (a step that throws rolls every step back). Other writes wait
   * for it as they wait for an fsync; reads between steps see its rows so far,
   * as they see a batch being fsynced.
   */
  writeSliced<T>(step: WriteStep<T>): Promise<T> {
    if (this.inWrite) return Promise.reject(new Error('nested store.write'));
    if (this.stopping) return Promise.reject(stoppingError());
    return new Promise<T>((resolve, reject) => {
      const start = () => void this.runSliced(step, resolve, reject);
      if (this.flushing || this.slicing || this.batch) this.deferred.push({ sliced: true, run: start });
      else start();
    });
  }

  private async runSliced<T>(step: WriteStep<T>, resolve: (v: T) => void, reject: (e: unknown) => void) {
    this.slicing = true;
    // Its record (tens of MB for a bulk import) goes to the journal file as it is encoded: nothing else writes it now.
    const record = new RecordEncoder(this.seq + 1, this.journal.spill());
    const tx = this.txOf(record);
    this.db.exec('BEGIN');
    let done: { value: T } | undefined;
    try {
      for (;;) {
        this.inWrite = true;
        try {
          done = step(tx);
        } finally {
          this.inWrite = false;
        }
        if (done) break;
        if (this.stopping) throw stoppingError();
        await new Promise((r) => setImmediate(r));
      }
    } catch (e) {
      this.db.exec('ROLLBACK');
      record.dropSpill();
      this.slicing = false;
      reject(e);
      this.drain();
      return;
    }
    this.slicing = false;
    const { value } = done;
    this.enqueue(record, true, () => resolve(value), reject);
    this.drain();
  }

  private all<T>(sql: string, params: SqlParam[] = []): T[] {
    return queryAll<T>(this.db, sql, params);
  }

  private startFlush(): void {
    if (!this.batch || this.flushing) return;
    this.flushing = true;
    void this.flush(this.batch);
  }

  private async flush(batch: Batch): Promise<void> {
    let failed: unknown;
    try {
      const joined = batch.bytes < JOIN_BELOW && !batch.spilled;
      await this.journal.append(joined ? [Buffer.concat(batch.records)] : batch.records, batch.spilled);
    } catch (e) {
      failed = e ?? new Error('journal append failed');
    }
    this.batch = undefined;
    if (failed === undefined) {
      this.db.exec('COMMIT');
      this.durable = this.seq;
      for (const w of batch.waiters) w.resolve();
      this.onDurable(this.durable);
    } else {
      // Synchronously, before anything else can read: memory goes back to what the journal holds.
      this.db.exec('ROLLBACK');
      this.seq = this.durable;
      const err = await this.failure(failed).catch((e: unknown) => e);
      for (const w of batch.waiters) w.reject(err);
    }
    this.flushing = false;
    this.drain();
  }

  /** After a batch or a sliced write: idle tasks, then the writes that waited, in order, then their flush. */
  private drain(): void {
    if (!this.batch) for (const task of this.idleTasks.splice(0)) task();
    while (this.deferred.length && !this.slicing && !(this.deferred[0].sliced && this.batch))
      this.deferred.shift()!.run();
    this.startFlush();
  }

  /** Runs `task` (synchronous) when no transaction is open and nothing is in flight. */
  atIdle<T>(task: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = () => {
        try {
          resolve(task());
        } catch (e) {
          reject(e);
        }
      };
      if (!this.flushing && !this.batch && !this.slicing) run();
      else this.idleTasks.push(run);
    });
  }

  /**
   * The store is closing: a sliced write rolls back at its next step (answered BRIDGE_STOPPING, nothing of it kept)
   * and new ones are refused, so a clean stop waits for one step, not for a whole import.
   */
  stopSliced(): void {
    this.stopping = true;
  }

  /** Resolves once every write handed in so far has been answered. */
  async settled(): Promise<void> {
    do await this.atIdle(() => undefined);
    while (this.flushing || this.batch || this.slicing || this.deferred.length);
  }
}

const stoppingError = () =>
  new BridgeError(
    'BRIDGE_STOPPING',
    503,
    'The bridge is stopping: this write was rolled back and nothing of it was kept. Send it again once the bridge is back.',
    undefined,
    true,
  );
