import {
  constants,
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  writeSync,
  rmSync,
  write as fsWrite,
  fsync as fsFsync,
  ftruncate as fsFtruncate,
} from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { fsyncDir, writeDurably } from './durableFiles';
import { renameReplacingSync } from './renameReplacing';

const writeAsync = promisify(fsWrite);
const fsyncAsync = promisify(fsFsync);
const ftruncateAsync = promisify(fsFtruncate);

/** A record's header: u32 length, u32 CRC32 (journal.ts). */
const HEADER = 8;

/**
 * Where a record being encoded writes its payload ahead of its append: just past the header's place at the durable
 * end. `write` is false once a write failed (the rest stays in memory; the append then meets the real error).
 */
export interface RecordSpill {
  write(chunk: Buffer): boolean;
  /** Payload bytes on file so far, right after the header's place. */
  readonly bytes: number;
  /** The record was rolled back: what it wrote is cut off before the next append. */
  drop(): void;
}

/** Not O_APPEND: batches are written at the durable end, over what a failed batch may have left. */
const OPEN_FLAGS = constants.O_RDWR | constants.O_CREAT;

/**
 * The open journal file (its record format and recovery: journal.ts). `append` writes a batch of records (group commit:
 * the store gathers the writes that arrive during one fsync into the next
 * batch) and resolves once they are on disk. `bytes` counts only what is
 * durable. A batch that fails is cut off again (truncate + fsync) so the file
 * holds exactly the acknowledged records; if even that fails, the file is
 * marked dirty and the next append repairs it first, so nothing is appended
 * after bytes of a failed batch.
 */
export class JournalWriter {
  private fd: number;
  private size: number;
  /** The file may hold bytes past `size` (a failed batch that could not be cut off yet). */
  private dirty = false;
  private flushing: Promise<void> | null = null;
  /** The spill handed out last, until its record is appended or dropped. */
  private spilled: { start: number; spill: RecordSpill; failed: () => { error: unknown } | undefined } | undefined;

  constructor(
    readonly path: string,
    truncateTo?: number,
  ) {
    const created = !existsSync(path);
    this.fd = openSync(path, OPEN_FLAGS, 0o600);
    // A new file's name must be durable too, or a power loss could take the whole journal with it.
    if (created) fsyncDir(dirname(path));
    if (truncateTo !== undefined && fstatSync(this.fd).size !== truncateTo) {
      ftruncateSync(this.fd, truncateTo);
      fsyncSync(this.fd);
    }
    this.size = fstatSync(this.fd).size;
  }

  /** Durable bytes: every acknowledged record, nothing else. */
  get bytes(): number {
    return this.size;
  }

  /**
   * A spill for the next record, so that a bulk write's record (tens of MB) is not held in memory whole: its payload
   * goes to the file as it is encoded, past the durable end, where nothing reads it (a checkpoint reads only the
   * durable part) and where, should the process die, it is a torn tail recovery drops (no header has been written).
   * Only while nothing else can write the file (the store's sliced write holds it); undefined when the file may
   * hold a failed batch's bytes.
   */
  spill(): RecordSpill | undefined {
    if (this.flushing || this.dirty) return undefined;
    const start = this.size + HEADER;
    let bytes = 0;
    let failed: { error: unknown } | undefined;
    const spill: RecordSpill = {
      write: (chunk) => {
        if (failed) return false;
        try {
          let done = 0;
          while (done < chunk.length)
            done += writeSync(this.fd, chunk, done, chunk.length - done, start + bytes + done);
          bytes += chunk.length;
          return true;
        } catch (e) {
          // Its bytes may be short now: the append fails with this error, and the next one cuts them off first.
          failed = { error: e ?? new Error('journal write failed') };
          this.dirty = true;
          return false;
        }
      },
      get bytes() {
        return bytes;
      },
      drop: () => {
        if (bytes > 0) this.dirty = true;
        this.spilled = undefined;
      },
    };
    this.spilled = { start, spill, failed: () => failed };
    return spill;
  }

  /**
   * Writes and fsyncs `records` (buffers, in order) after the durable ones; one batch at a time. `spilled`: the
   * first record's payload bytes already on file (spill()); `records[0]` is then that record's header alone.
   */
  append(records: readonly Buffer[], spilled = 0): Promise<void> {
    if (this.flushing) throw new Error('journal append while a batch is in flight');
    const spill = this.spilled;
    this.spilled = undefined;
    const failed = spilled ? spill?.failed() : undefined;
    if (
      spilled &&
      !failed &&
      (spill?.start !== this.size + HEADER ||
        spill.spill.bytes !== spilled ||
        records[0].length !== HEADER ||
        this.dirty)
    )
      throw new Error('journal append of a spilled record not at the durable end');
    const p = (failed ? Promise.reject(failed.error) : this.flush(records, spilled)).finally(
      () => (this.flushing = null),
    );
    this.flushing = p;
    return p;
  }

  private async flush(parts: readonly Buffer[], spilled: number): Promise<void> {
    if (this.dirty) await this.cutBack();
    let at = this.size;
    try {
      // Positioned writes: after a cut-back the next batch goes exactly where the durable records end.
      for (const [i, part] of parts.entries()) {
        let written = 0;
        while (written < part.length)
          written += (await writeAsync(this.fd, part, written, part.length - written, at + written)).bytesWritten;
        at += part.length + (i === 0 ? spilled : 0);
      }
      await fsyncAsync(this.fd);
    } catch (e) {
      this.dirty = true;
      await this.cutBack().catch(() => undefined);
      throw e;
    }
    this.size = at;
  }

  /** Cuts the file back to its durable records (a failed batch may have left some of its bytes). */
  private async cutBack(): Promise<void> {
    await ftruncateAsync(this.fd, this.size);
    await fsyncAsync(this.fd);
    this.dirty = false;
  }

  /** True while a batch is being written. */
  get busy(): boolean {
    return this.flushing !== null;
  }

  /** Resolves when the batch in flight (if any) has settled. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
  }

  /** Empties the journal (after a checkpoint made its records redundant). */
  truncate(): void {
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.size = 0;
    this.dirty = false;
  }

  /**
   * Drops the first `offset` bytes: the records a checkpoint now holds. What
   * was appended after them (while the checkpoint was being written) moves to
   * a new file that replaces this one atomically, so a crash at any point
   * leaves either the old journal or the new one, both complete. Call only
   * when nothing is being flushed (after drain(), without yielding).
   */
  rebase(offset: number): void {
    if (this.flushing) throw new Error('journal rebase during a flush');
    if (offset >= this.size) return this.truncate();
    const tail = Buffer.alloc(this.size - offset);
    let read = 0;
    while (read < tail.length) {
      const n = readSync(this.fd, tail, read, tail.length - read, offset + read);
      // A file cut shorter behind our back (damage): fail this checkpoint rather than loop for ever.
      if (n === 0) throw new Error(`library.journal holds ${offset + read} bytes; ${this.size} were written`);
      read += n;
    }
    const tmp = `${this.path}.rebase`;
    writeDurably(tmp, tail);
    // Windows refuses a rename over a file that is open, our own descriptor included: it is closed first.
    closeSync(this.fd);
    try {
      renameReplacingSync(tmp, this.path);
    } catch (e) {
      // The old journal is still whole under its name: reopened, it goes on as before.
      this.fd = openSync(this.path, OPEN_FLAGS, 0o600);
      rmSync(tmp, { force: true });
      throw e;
    }
    this.fd = openSync(this.path, OPEN_FLAGS, 0o600);
    fsyncDir(dirname(this.path));
    this.size = tail.length;
    this.dirty = false;
  }

  close(): void {
    closeSync(this.fd);
  }
}
