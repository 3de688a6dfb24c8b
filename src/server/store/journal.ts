import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, renameSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDir, writeDurably } from './durableFiles';
import { write as fsWrite, fsync as fsFsync } from 'node:fs';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';

const writeAsync = promisify(fsWrite);
const fsyncAsync = promisify(fsFsync);

/**
 * Append-only log of committed transactions. Record = u32 length, u32 CRC32,
 * payload (UTF-8 JSON). A record whose length or CRC does not check out is a
 * torn tail from a crash: it and everything after it is discarded.
 */
export type SqlParam = string | number | null | Uint8Array;
export interface JournalRecord {
  seq: number;
  stmts: Array<[sql: string, params: SqlParam[]]>;
}

const HEADER = 8;

const withBytes = (rec: JournalRecord) => rec.stmts.some(([, params]) => params.some((p) => p instanceof Uint8Array));

/**
 * Bytes are written as {$b64}. Mapped explicitly rather than by a replacer:
 * JSON.stringify calls Buffer's toJSON before any replacer sees it, which
 * journaled {type:'Buffer',data} objects that could not be bound on replay.
 */
const encodeParam = (p: SqlParam) => (p instanceof Uint8Array ? { $b64: Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('base64') } : p);

export function encodeRecord(rec: JournalRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(withBytes(rec) ? { seq: rec.seq, stmts: rec.stmts.map(([sql, params]) => [sql, params.map(encodeParam)]) } : rec));
  const head = Buffer.alloc(HEADER);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

function decodePayload(payload: Buffer): JournalRecord {
  return JSON.parse(payload.toString('utf8'), (_k, v) =>
    v && typeof v === 'object' && typeof v.$b64 === 'string' ? new Uint8Array(Buffer.from(v.$b64, 'base64')) : v,
  );
}

/** Reads every intact record; `validBytes` is where the torn tail (if any) begins. */
export function readJournal(path: string): { records: JournalRecord[]; validBytes: number; tornBytes: number } {
  if (!existsSync(path)) return { records: [], validBytes: 0, tornBytes: 0 };
  const buf = readFileSync(path);
  const records: JournalRecord[] = [];
  let off = 0;
  while (off + HEADER <= buf.length) {
    const len = buf.readUInt32LE(off);
    const crc = buf.readUInt32LE(off + 4);
    if (off + HEADER + len > buf.length) break;
    const payload = buf.subarray(off + HEADER, off + HEADER + len);
    if ((crc32(payload) >>> 0) !== crc) break;
    try {
      records.push(decodePayload(payload));
    } catch {
      break;
    }
    off += HEADER + len;
  }
  return { records, validBytes: off, tornBytes: buf.length - off };
}

/**
 * The open journal file. `append` queues a record; records queued while a
 * flush is under way are written and fsynced together (group commit), and
 * each append resolves only once its bytes are on disk.
 */
export class JournalWriter {
  private fd: number;
  private size: number;
  private queue: Array<{ buf: Buffer; resolve: () => void; reject: (e: unknown) => void }> = [];
  private flushing: Promise<void> | null = null;

  constructor(readonly path: string, truncateTo?: number) {
    this.fd = openSync(path, 'a+');
    if (truncateTo !== undefined && fstatSync(this.fd).size !== truncateTo) {
      ftruncateSync(this.fd, truncateTo);
      fsyncSync(this.fd);
    }
    this.size = fstatSync(this.fd).size;
  }

  get bytes(): number {
    return this.size;
  }

  append(rec: JournalRecord): Promise<void> {
    const buf = encodeRecord(rec);
    this.size += buf.length;
    return new Promise((resolve, reject) => {
      this.queue.push({ buf, resolve, reject });
      if (!this.flushing) this.flushing = this.flushLoop();
    });
  }

  /** True while appended records are still being written. */
  get busy(): boolean {
    return this.flushing !== null;
  }

  /** Resolves when everything appended so far is durable. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0);
        try {
          const all = Buffer.concat(batch.map((b) => b.buf));
          let written = 0;
          while (written < all.length) {
            written += (await writeAsync(this.fd, all, written, all.length - written, null)).bytesWritten;
          }
          await fsyncAsync(this.fd);
          for (const b of batch) b.resolve();
        } catch (e) {
          for (const b of batch) b.reject(e);
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  /** Empties the journal (after a checkpoint made its records redundant). */
  truncate(): void {
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.size = 0;
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
    while (read < tail.length) read += readSync(this.fd, tail, read, tail.length - read, offset + read);
    const tmp = `${this.path}.rebase`;
    writeDurably(tmp, tail);
    renameSync(tmp, this.path);
    fsyncDir(dirname(this.path));
    closeSync(this.fd);
    this.fd = openSync(this.path, 'a+');
    this.size = tail.length;
  }

  close(): void {
    closeSync(this.fd);
  }
}
