import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { encodeRecord, parseJournal, type JournalRecord } from '../../src/server/ground/store/journal';
import type { RecordSpill } from '../../src/server/ground/store/journalWriter';
import { RecordEncoder } from '../../src/server/ground/store/recordEncoder';

/** The record format as it was written before (one JSON string, one buffer): the bytes must not change. */
function wholeRecord(rec: JournalRecord): Buffer {
  const b64 = (p: unknown) => (p instanceof Uint8Array ? { $b64: Buffer.from(p).toString('base64') } : p);
  const json = JSON.stringify({ seq: rec.seq, stmts: rec.stmts.map(([sql, params]) => [sql, params.map(b64)]) });
  const payload = Buffer.from(json);
  const head = Buffer.alloc(8);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

describe('journal record encoder', () => {
  it('writes the bytes of the whole-record encoding, across many chunks', () => {
    const stmts: JournalRecord['stmts'] = [];
    // ~6 MB in statements of every size (past the 1 MiB chunk), non-ASCII, quotes and bytes among them.
    for (let i = 0; i < 3000; i++)
      stmts.push([
        `INSERT INTO t VALUES ${'(?, ?),'.repeat(i % 200)}(?, ?)`,
        [
          `é"\\ ${'x'.repeat((i * 37) % 3000)} 漢 ${i}`,
          i % 3 ? i : null,
          ...(i % 7 ? [] : [new Uint8Array([i & 255, 0])]),
        ],
      ]);
    stmts.push(['BIG', ['y'.repeat(3 * 1024 * 1024)]]);
    const rec = { seq: 42, stmts };
    const enc = new RecordEncoder(rec.seq);
    for (const [sql, params] of stmts) enc.statement(sql, params);
    const parts = enc.finish();
    assert.ok(parts.length > 4, `${parts.length} chunks`);
    const bytes = Buffer.concat(parts);
    assert.ok(bytes.equals(wholeRecord(rec)));
    assert.ok(encodeRecord(rec).equals(bytes));
    const read = parseJournal(bytes);
    assert.equal(read.tornBytes, 0);
    assert.equal(read.records[0].stmts.length, stmts.length);
    assert.deepEqual(read.records[0].stmts[7][1], stmts[7][1]);
  });

  it('with a spill, each chunk is written into the buffer the last one went out of, and the bytes still match', () => {
    const stmts: JournalRecord['stmts'] = [];
    for (let i = 0; i < 12000; i++)
      stmts.push([`INSERT INTO t VALUES (?, ?)`, [`row ${i} ${'z'.repeat(i % 2000)}`, i]]);
    stmts.push(['BIG', ['y'.repeat(2 * 1024 * 1024)]]);
    const rec = { seq: 7, stmts };
    /** A spill that takes `accept` chunks (copied, as a file would), then fails. */
    const run = (accept: number) => {
      const onFile: Buffer[] = [];
      const buffers = new Set<ArrayBufferLike>();
      const spill: RecordSpill = {
        write: (chunk) => {
          if (onFile.length >= accept) return false;
          onFile.push(Buffer.from(chunk));
          buffers.add(chunk.buffer);
          return true;
        },
        get bytes() {
          return onFile.reduce((n, c) => n + c.length, 0);
        },
        drop: () => {},
      };
      const enc = new RecordEncoder(rec.seq, spill);
      for (const [sql, params] of stmts) enc.statement(sql, params);
      const [head, ...held] = enc.finish();
      return { bytes: Buffer.concat([head, ...onFile, ...held]), onFile, buffers, held };
    };
    const all = run(Infinity);
    assert.ok(all.bytes.equals(wholeRecord(rec)));
    assert.ok(all.onFile.length > 8, `${all.onFile.length} chunks spilled`);
    // Before: a buffer per chunk. Now the 4 KiB first one, the growing ones up to 1 MiB, and the 2 MiB statement's.
    assert.ok(all.buffers.size < all.onFile.length / 2, `${all.buffers.size} buffers for ${all.onFile.length} chunks`);
    // A spill that fails midway: the chunks after it are held (never written over) and the record is whole.
    const cut = run(5);
    assert.equal(cut.onFile.length, 5);
    assert.ok(cut.held.length > 1);
    assert.ok(cut.bytes.equals(wholeRecord(rec)));
  });

  it('a small record and one without statements match too', () => {
    for (const rec of [
      { seq: 1, stmts: [['UPDATE x SET a = ?', ['ü']]] },
      { seq: 2, stmts: [] },
    ] as JournalRecord[])
      assert.ok(encodeRecord(rec).equals(wholeRecord(rec)));
  });
});
