/**
 * Append-only log of committed transactions.
 *
 * Record: u32 length, u32 CRC32 of the payload, payload. The payload is
 * UTF-8 JSON that always starts `{"seq":` (seq rises by one per record).
 * Journals written before this rule look the same, so they read unchanged.
 *
 * Why the prefix matters: JSON escapes every quote inside a string, so the
 * bytes `{"seq":` occur in an intact payload only at its start. That makes
 * them a record marker we can scan for after damage without a new format.
 *
 * Recovery rules (readJournal, then journalRecovery.ts):
 * - a bad record with nothing valid after it is a torn tail: a crash cut the
 *   last (unacknowledged) append short. It is dropped, as it always was;
 * - a bad record followed by valid ones is damage (a flipped bit, a bad
 *   sector): acknowledged writes lie after it, so we must not stop there.
 *   We resync on the next candidate whose length is plausible, whose CRC
 *   matches, whose JSON parses and whose seq is higher than the last good
 *   one, and lose only what lay between. Candidates are found with indexOf
 *   on the marker and CRC work is capped, so a hostile file costs O(size);
 * - the damaged file is kept aside (library.journal.damaged-<time>) before
 *   the journal is rewritten to hold only the records that applied, so the
 *   evidence survives and the next start finds nothing new to report.
 */

import {
  constants,
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  existsSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDir, writeDurably } from './durableFiles';
import { renameReplacingSync } from './renameReplacing';
import { write as fsWrite, fsync as fsFsync, ftruncate as fsFtruncate } from 'node:fs';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';

const writeAsync = promisify(fsWrite);
const fsyncAsync = promisify(fsFsync);
const ftruncateAsync = promisify(fsFtruncate);

export type SqlParam = string | number | null | Uint8Array;
export interface JournalRecord {
  seq: number;
  stmts: Array<[sql: string, params: SqlParam[]]>;
}

const HEADER = 8;
/** Not O_APPEND: batches are written at the durable end, over what a failed batch may have left. */
const OPEN_FLAGS = constants.O_RDWR | constants.O_CREAT;

const withBytes = (rec: JournalRecord) => rec.stmts.some(([, params]) => params.some((p) => p instanceof Uint8Array));

/**
 * Bytes are written as {$b64}. Mapped explicitly rather than by a replacer:
 * JSON.stringify calls Buffer's toJSON before any replacer sees it, which
 * journaled {type:'Buffer',data} objects that could not be bound on replay.
 */
const encodeParam = (p: SqlParam) =>
  p instanceof Uint8Array ? { $b64: Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('base64') } : p;

export function encodeRecord(rec: JournalRecord): Buffer {
  // seq first, always: the payload's `{"seq":` prefix is what a resync looks for.
  const payload = Buffer.from(
    JSON.stringify({
      seq: rec.seq,
      stmts: withBytes(rec) ? rec.stmts.map(([sql, params]) => [sql, params.map(encodeParam)]) : rec.stmts,
    }),
  );
  const head = Buffer.alloc(HEADER);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

function decodePayload(payload: Buffer): JournalRecord {
  return JSON.parse(payload.toString('utf8'), (_k, v: unknown) => {
    const b64 = v && typeof v === 'object' ? (v as { $b64?: unknown }).$b64 : undefined;
    return typeof b64 === 'string' ? new Uint8Array(Buffer.from(b64, 'base64')) : v;
  }) as JournalRecord;
}

/** The bytes every payload starts with (see the top of this file). */
const MARKER = Buffer.from('{"seq":');
/**
 * CRC work a resync may do beyond a pass over the file, so hostile bytes
 * cannot make a start slow. A genuine record is followed by another record's
 * marker (or the end of the file): such candidates draw on their own budget,
 * so garbage that spends the other one cannot hide the records after it.
 */
const RESYNC_CRC_BUDGET = 16 * 1024 * 1024;

/** Bytes between two intact records (or before the first) that did not check out. */
export interface DamagedSpan {
  start: number;
  end: number;
  /** seq of the intact record before the span (undefined: the span opens the file). */
  afterSeq: number | undefined;
  /** seq of the intact record the reader resynchronised on. */
  beforeSeq: number;
}

export interface JournalRead {
  records: JournalRecord[];
  /** [start, end) of each record in the file, parallel to `records`. */
  ranges: Array<[number, number]>;
  damaged: DamagedSpan[];
  /** Where the torn tail (if any) begins: the end of the last intact record. */
  validBytes: number;
  tornBytes: number;
  /** The file as read (the caller keeps it aside when it is damaged). */
  bytes: Buffer;
}

/** The intact record at `off`, or undefined. `marked`: the payload must start with MARKER (when resyncing). */
function recordAt(buf: Buffer, off: number, marked: boolean): { rec: JournalRecord; end: number } | undefined {
  if (off < 0 || off + HEADER > buf.length) return undefined;
  const len = buf.readUInt32LE(off);
  const end = off + HEADER + len;
  if (len === 0 || end > buf.length) return undefined;
  const payload = buf.subarray(off + HEADER, end);
  if (marked && !payload.subarray(0, MARKER.length).equals(MARKER)) return undefined;
  if (crc32(payload) >>> 0 !== buf.readUInt32LE(off + 4)) return undefined;
  try {
    const rec = decodePayload(payload);
    if (!Number.isSafeInteger(rec?.seq) || !Array.isArray(rec.stmts)) return undefined;
    return { rec, end };
  } catch {
    return undefined;
  }
}

/**
 * Reads every intact record. After a bad one it looks for the next intact
 * record with a higher seq: found, the bytes between are a damaged span;
 * not found, they are a torn tail.
 */
export function readJournal(path: string): JournalRead {
  return parseJournal(existsSync(path) ? readFileSync(path) : Buffer.alloc(0));
}

/** readJournal over bytes already read (an off-thread checkpoint reads only the journal's acknowledged part). */
export function parseJournal(buf: Buffer): JournalRead {
  const records: JournalRecord[] = [];
  const ranges: Array<[number, number]> = [];
  const damaged: DamagedSpan[] = [];
  const budget = { chained: RESYNC_CRC_BUDGET + 2 * buf.length, suspect: RESYNC_CRC_BUDGET + buf.length };
  let off = 0;
  while (off < buf.length) {
    const hit = recordAt(buf, off, false);
    if (hit) {
      records.push(hit.rec);
      ranges.push([off, hit.end]);
      off = hit.end;
      continue;
    }
    const lastSeq = records.at(-1)?.seq;
    let resumed: { at: number; seq: number } | undefined;
    // A candidate's header sits 8 bytes before its marker and after `off`.
    for (let m = buf.indexOf(MARKER, off + HEADER + 1); m !== -1; m = buf.indexOf(MARKER, m + 1)) {
      const at = m - HEADER;
      const end = m + buf.readUInt32LE(at);
      if (end > buf.length || end - m < MARKER.length) continue;
      const chained =
        buf.length - end < HEADER + MARKER.length ||
        buf.subarray(end + HEADER, end + HEADER + MARKER.length).equals(MARKER);
      const kind = chained ? 'chained' : 'suspect';
      if (budget[kind] <= 0) continue;
      budget[kind] -= end - m;
      const cand = recordAt(buf, at, true);
      if (cand && (lastSeq === undefined || cand.rec.seq > lastSeq)) {
        resumed = { at, seq: cand.rec.seq };
        break;
      }
    }
    if (resumed === undefined) break;
    damaged.push({ start: off, end: resumed.at, afterSeq: lastSeq, beforeSeq: resumed.seq });
    off = resumed.at;
  }
  // The loop ends at the file's end or at a bad record nothing intact follows: a torn tail.
  return { records, ranges, damaged, validBytes: off, tornBytes: buf.length - off, bytes: buf };
}

/**
 * The open journal file. `append` writes a batch of records (group commit:
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

  /** Writes and fsyncs `records` after the durable ones; one batch at a time. */
  append(records: Buffer): Promise<void> {
    if (this.flushing) throw new Error('journal append while a batch is in flight');
    const p = this.flush(records).finally(() => (this.flushing = null));
    this.flushing = p;
    return p;
  }

  private async flush(all: Buffer): Promise<void> {
    if (this.dirty) await this.cutBack();
    try {
      let written = 0;
      // Positioned writes: after a cut-back the next batch goes exactly where the durable records end.
      while (written < all.length)
        written += (await writeAsync(this.fd, all, written, all.length - written, this.size + written)).bytesWritten;
      await fsyncAsync(this.fd);
    } catch (e) {
      this.dirty = true;
      await this.cutBack().catch(() => undefined);
      throw e;
    }
    this.size += all.length;
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
