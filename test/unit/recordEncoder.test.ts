import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { encodeRecord, parseJournal, type JournalRecord } from '../../src/server/ground/store/journal';
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

  it('a small record and one without statements match too', () => {
    for (const rec of [
      { seq: 1, stmts: [['UPDATE x SET a = ?', ['ü']]] },
      { seq: 2, stmts: [] },
    ] as JournalRecord[])
      assert.ok(encodeRecord(rec).equals(wholeRecord(rec)));
  });
});
