import { crc32 } from 'node:zlib';
import type { RecordSpill } from './journalWriter';

export type SqlParam = string | number | null | Uint8Array;

/**
 * Bytes are written as {$b64}. Mapped explicitly rather than by a replacer:
 * JSON.stringify calls Buffer's toJSON before any replacer sees it, which
 * journaled {type:'Buffer',data} objects that could not be bound on replay.
 */
const encodeParam = (p: SqlParam) =>
  p instanceof Uint8Array ? { $b64: Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('base64') } : p;

/** The first chunk's size; later ones double with the record, up to MAX_CHUNK. */
const MIN_CHUNK = 4 * 1024;
const MAX_CHUNK = 1024 * 1024;

/**
 * One journal record (journal.ts: u32 length, u32 CRC32, payload) encoded a
 * statement at a time, as the write runs them. The payload's bytes equal
 * encodeRecord's, but no JSON string of the whole record is ever built, the
 * bytes land once in chunks the journal writes as they are, and the CRC is
 * taken chunk by chunk: a bulk import's record (tens of MB) is held once, not
 * three times, and its statements' params are free as soon as they ran.
 * With a spill (JournalWriter.spill) each full chunk goes to the journal file
 * as it is sealed and is not held at all: finish() then returns the header and
 * the chunks not yet on file, which follow the spilled ones. The spill writes
 * synchronously, so the next chunk is written into the same buffer: a 61 MB
 * record (the 40,000-card Anki import) allocated 61 chunks of 1 MiB that
 * waited for a GC (its peak RSS did not measurably change; docs/PERFORMANCE.md).
 */
export class RecordEncoder {
  private readonly chunks: Buffer[] = [];
  private cur: Buffer;
  private pos = 0;
  private size = 0;
  /** The chunk buffer last allocated, while what was sealed in it went to the spill (free to write again). */
  private spent: Buffer | undefined;
  private crc = 0;
  private count = 0;

  constructor(
    seq: number,
    private readonly spill?: RecordSpill,
  ) {
    this.cur = Buffer.allocUnsafe(MIN_CHUNK);
    this.chunks.push(Buffer.alloc(8));
    // seq first, always: the payload's `{"seq":` prefix is what a resync looks for.
    this.add(`{"seq":${JSON.stringify(seq)},"stmts":[`);
  }

  /** Appends one statement, as JSON.stringify would write it inside the record's `stmts`. */
  statement(sql: string, params: SqlParam[]): void {
    const bytes = params.some((p) => p instanceof Uint8Array);
    this.add((this.count++ ? ',' : '') + JSON.stringify([sql, bytes ? params.map(encodeParam) : params]));
  }

  get statements(): number {
    return this.count;
  }

  /** Payload bytes already on file (the spill's), between the header and the buffers finish() returns. */
  get spilledBytes(): number {
    return this.spill?.bytes ?? 0;
  }

  /** The write was rolled back or wrote nothing: what it spilled is cut off before the next append. */
  dropSpill(): void {
    this.spill?.drop();
  }

  /** The record's buffers (header first), ready to be written in order. */
  finish(): Buffer[] {
    this.add(']}');
    this.seal();
    this.chunks[0].writeUInt32LE(this.size, 0);
    this.chunks[0].writeUInt32LE(this.crc >>> 0, 4);
    return this.chunks;
  }

  private add(s: string): void {
    const n = Buffer.byteLength(s);
    if (n > this.cur.length - this.pos) {
      this.seal();
      const size = Math.max(n, Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, 2 * this.size)));
      this.cur = this.spent && this.spent.length >= size ? this.spent : (this.spent = Buffer.allocUnsafe(size));
      this.pos = 0;
    }
    this.pos += this.cur.write(s, this.pos);
  }

  private seal(): void {
    if (this.pos === 0) return;
    const done = this.cur.subarray(0, this.pos);
    // On file once the chunks before it are (a chunk kept in memory ends the spilling).
    if (!(this.chunks.length === 1 && this.spill?.write(done))) {
      this.chunks.push(done);
      this.spent = undefined; // held until finish(): never written over
    }
    this.crc = crc32(done, this.crc);
    this.size += done.length;
    this.cur = this.cur.subarray(this.pos);
    this.pos = 0;
  }
}
