// The journal reader tells a torn tail (the last append, cut short) from
// damage in the middle (acknowledged records follow it), and the store loses
// only the damaged records.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { encodeRecord, readJournal, type JournalRecord } from '../../src/server/ground/store/journal';
import { Store } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';

const rec = (seq: number, title = `t${seq}`): JournalRecord => ({
  seq,
  stmts: [['INSERT INTO x VALUES (?)', [title]]],
});
const records = (n: number) => Array.from({ length: n }, (_, i) => encodeRecord(rec(i + 1)));
const seqs = (path: string) => readJournal(path).records.map((r) => r.seq);
const range = (n: number, skip: number[] = []) =>
  Array.from({ length: n }, (_, i) => i + 1).filter((s) => !skip.includes(s));

/** A record exactly as the previous build wrote it (length, CRC, JSON.stringify of the record as passed). */
function legacyRecord(r: JournalRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(r));
  const head = Buffer.alloc(8);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

describe('journal reader: damage versus torn tail', () => {
  it('a flipped bit mid-file costs only that record; the reader resyncs on the next', () => {
    const path = join(tempDir(), 'j');
    const recs = records(51);
    const at = recs.slice(0, 24).reduce((n, b) => n + b.length, 0);
    const file = Buffer.concat(recs);
    file[at + 8 + 10] ^= 0x01; // record 25's payload
    writeFileSync(path, file);
    const read = readJournal(path);
    assert.deepEqual(
      read.records.map((r) => r.seq),
      range(51, [25]),
    );
    assert.deepEqual(read.damaged, [{ start: at, end: at + recs[24].length, afterSeq: 24, beforeSeq: 26 }]);
    assert.equal(read.tornBytes, 0);
  });

  it('a damaged length field (too long, too short) costs only that record', () => {
    for (const len of [0x7fffffff, 5, 0]) {
      const path = join(tempDir(), 'j');
      const recs = records(51);
      const at = recs.slice(0, 24).reduce((n, b) => n + b.length, 0);
      const file = Buffer.concat(recs);
      file.writeUInt32LE(len, at);
      writeFileSync(path, file);
      assert.deepEqual(seqs(path), range(51, [25]), `length ${len}`);
    }
  });

  it('several damaged spans, and damage in the very first record', () => {
    const path = join(tempDir(), 'j');
    const recs = records(10);
    for (const k of [0, 4, 5, 8]) recs[k][recs[k].length - 2] ^= 0x80;
    writeFileSync(path, Buffer.concat(recs));
    const read = readJournal(path);
    assert.deepEqual(
      read.records.map((r) => r.seq),
      [2, 3, 4, 7, 8, 10],
    );
    assert.deepEqual(
      read.damaged.map((d) => [d.afterSeq, d.beforeSeq]),
      [
        [undefined, 2],
        [4, 7],
        [8, 10],
      ],
    );
  });

  it('a bad record with nothing intact after it is a torn tail, even with marker bytes inside', () => {
    const path = join(tempDir(), 'j');
    const recs = records(5);
    const tail = Buffer.from(recs[4].subarray(0, recs[4].length - 1));
    // Garbage that carries the marker but no record: not resynced on.
    writeFileSync(
      path,
      Buffer.concat([...recs.slice(0, 4), tail, Buffer.from('\x10\0\0\0\0\0\0\0{"seq":999,"stmts":[]}')]),
    );
    const read = readJournal(path);
    assert.deepEqual(
      read.records.map((r) => r.seq),
      [1, 2, 3, 4],
    );
    assert.deepEqual(read.damaged, []);
    assert.equal(
      read.validBytes,
      recs.slice(0, 4).reduce((n, b) => n + b.length, 0),
    );
  });

  it('resyncs only on a higher seq (an old record copied after the damage is not taken)', () => {
    const path = join(tempDir(), 'j');
    const recs = records(6);
    recs[3][20] ^= 0x02;
    writeFileSync(path, Buffer.concat([...recs.slice(0, 4), encodeRecord(rec(2, 'old')), ...recs.slice(4)]));
    assert.deepEqual(seqs(path), [1, 2, 3, 5, 6]);
  });

  it('a title containing the marker text cannot fake a record start (JSON escapes its quotes)', () => {
    const fake = encodeRecord(rec(1, '{"seq":2,"stmts":[]}'));
    assert.equal(fake.indexOf('{"seq":'), 8);
    assert.equal(fake.indexOf('{"seq":', 9), -1);
  });

  it('reads a journal written by the previous build, damaged in the middle too', () => {
    const path = join(tempDir(), 'j');
    const recs = Array.from({ length: 8 }, (_, i) =>
      legacyRecord({ seq: 100 + i, stmts: [['UPDATE t SET v = ?', [i, null]]] }),
    );
    writeFileSync(path, Buffer.concat(recs));
    assert.deepEqual(
      seqs(path),
      range(8).map((s) => s + 99),
    );
    recs[3][15] ^= 0x10;
    writeFileSync(path, Buffer.concat(recs));
    assert.deepEqual(seqs(path), [100, 101, 102, 104, 105, 106, 107]);
  });

  it('stays bounded on hostile bytes: 16 MB of marker candidates, each claiming 1 MB, after a bad record', () => {
    const path = join(tempDir(), 'j');
    const unit = Buffer.concat([Buffer.from([0x00, 0x00, 0x10, 0x00, 1, 2, 3, 4]), Buffer.from('{"seq":')]);
    const junk = Buffer.alloc(16 * 1024 * 1024);
    for (let o = 0; o + unit.length <= junk.length; o += unit.length) unit.copy(junk, o);
    writeFileSync(
      path,
      Buffer.concat([...records(3), Buffer.from([9, 9, 9, 9, 9, 9, 9, 9]), junk, ...records(5).slice(3)]),
    );
    const t0 = performance.now();
    const read = readJournal(path);
    const ms = performance.now() - t0;
    assert.deepEqual(
      read.records.map((r) => r.seq),
      [1, 2, 3, 4, 5],
    );
    assert.ok(ms < 10_000, `${ms.toFixed(0)} ms`);
  });
});

describe('store: replay over a damaged journal', () => {
  const insert = (s: Store, id: string) =>
    s.write((tx) =>
      tx.run(`INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'studyset', ?, 'a', 'a')`, [
        id,
        id,
      ]),
    );
  const ids = (s: Store) =>
    s.all<{ topicid: string }>('SELECT topicid FROM topics ORDER BY topicid').map((r) => r.topicid);

  it('replays what follows the damage, counts a record that no longer applies as lost, keeps the file and rewrites the journal', async () => {
    const dir = tempDir();
    const journalPath = join(dir, 'library.journal');
    const s = await Store.open(dir, { idleCheckpointMs: 0 });
    await s.checkpoint();
    await insert(s, 'A');
    await s.write((tx) => tx.run(`DELETE FROM topics WHERE topicid = 'A'`)); // will be damaged
    await insert(s, 'B');
    await insert(s, 'A'); // fails once the delete is lost: A still exists
    await insert(s, 'C');
    const read = readJournal(journalPath);
    assert.equal(read.records.length, 5);
    const damaged = readFileSync(journalPath);
    damaged[read.ranges[1][0] + 12] ^= 0x20;
    writeFileSync(journalPath, damaged);

    const s2 = await Store.open(dir, { idleCheckpointMs: 0 });
    assert.deepEqual(ids(s2), ['A', 'B', 'C']);
    const r = s2.recovery;
    assert.equal(r.lostRecords, 2);
    assert.equal(r.failedRecords, 1);
    assert.equal(r.damagedBytes, read.ranges[1][1] - read.ranges[1][0]);
    assert.ok(r.keptAs && readFileSync(r.keptAs).equals(damaged));
    assert.equal(statSync(r.keptAs).mode & 0o777, 0o600);
    assert.deepEqual(
      seqs(journalPath),
      [read.records[0].seq, read.records[2].seq, read.records[4].seq],
      'the journal holds the records that applied',
    );
    await insert(s2, 'D');

    // As after a second kill -9: nothing new to report, nothing lost.
    const s3 = await Store.open(dir, { idleCheckpointMs: 0 });
    assert.deepEqual(ids(s3), ['A', 'B', 'C', 'D']);
    assert.equal(s3.recovery.lostRecords, 0);
    assert.equal(s3.recovery.keptAs, undefined);
    assert.equal(readdirSync(dir).filter((f) => f.startsWith('library.journal.damaged-')).length, 1);
    await s3.close();
  });

  it('a torn tail alone is cut as before: no file kept, nothing reported', async () => {
    const dir = tempDir();
    const s = await Store.open(dir, { idleCheckpointMs: 0 });
    await insert(s, 'A');
    const journalPath = join(dir, 'library.journal');
    const intact = readFileSync(journalPath);
    writeFileSync(journalPath, Buffer.concat([intact, encodeRecord(rec(99)).subarray(0, 20)]));
    const s2 = await Store.open(dir, { idleCheckpointMs: 0 });
    assert.deepEqual(ids(s2), ['A']);
    assert.equal(s2.recovery.discardedTornBytes, 20);
    assert.equal(s2.recovery.lostRecords, 0);
    assert.equal(s2.recovery.keptAs, undefined);
    assert.ok(readFileSync(journalPath).equals(intact));
    assert.ok(!readdirSync(dir).some((f) => f.includes('.damaged-')));
    await s2.close();
  });

  it('removes temp files an interrupted rewrite, rebase or checkpoint left', async () => {
    const dir = tempDir();
    const left = [
      'library.journal.123.4.tmp',
      'library.journal.rebase',
      'library.db.123.1.tmp',
      'library.db.redo.123.2.tmp',
    ];
    for (const f of left) writeFileSync(join(dir, f), 'x');
    writeFileSync(join(dir, 'library.journal.notes.tmp'), 'not ours');
    const s = await Store.open(dir, { idleCheckpointMs: 0 });
    for (const f of left) assert.ok(!existsSync(join(dir, f)), f);
    assert.ok(existsSync(join(dir, 'library.journal.notes.tmp')));
    await s.close();
  });
});
