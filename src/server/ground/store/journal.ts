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

import { existsSync, readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { RecordEncoder, type SqlParam } from './recordEncoder';

export { JournalWriter } from './journalWriter';

export type { SqlParam };
export interface JournalRecord {
  seq: number;
  stmts: Array<[sql: string, params: SqlParam[]]>;
}

const HEADER = 8;

/** One record's bytes (the store encodes its records a statement at a time: recordEncoder.ts). */
export function encodeRecord(rec: JournalRecord): Buffer {
  const enc = new RecordEncoder(rec.seq);
  for (const [sql, params] of rec.stmts) enc.statement(sql, params);
  return Buffer.concat(enc.finish());
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
