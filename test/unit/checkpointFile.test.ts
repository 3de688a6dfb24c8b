import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { CheckpointFile } from '../../src/server/ground/store/checkpointFile';
import { encodeRedo, preImageOf } from '../../src/server/ground/store/redoFile';
import { Store } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';

const PAGE = 4096;
/** A fake database image: SQLite's header says 4096-byte pages; page i is filled with `fill(i)`. */
function image(pages: number, fill: (i: number) => number): Buffer {
  const b = Buffer.alloc(pages * PAGE);
  for (let i = 0; i < pages; i++) b.fill(fill(i), i * PAGE, (i + 1) * PAGE);
  b.writeUInt16BE(PAGE, 16);
  return b;
}

describe('checkpoint file: only changed pages are written, through a redo file', () => {
  it('writes the whole file first, then only the pages that differ; the file always equals the last image', async () => {
    const path = join(tempDir(), 'library.db');
    const { file } = CheckpointFile.open(path);
    const a = image(100, (i) => i);
    assert.deepEqual(await file.write(a), { mode: 'whole', pages: 100, changedPages: 100 });
    const b = image(103, (i) => (i === 7 || i === 50 ? 200 : i));
    assert.deepEqual(
      await file.write(b),
      { mode: 'pages', pages: 103, changedPages: 5 },
      'pages 7 and 50, three new at the end (page 0 keeps its header)',
    );
    assert.ok(readFileSync(path).equals(b));
    const c = image(90, (i) => (i === 7 ? 200 : i));
    assert.equal((await file.write(c)).mode, 'pages');
    assert.ok(readFileSync(path).equals(c), 'a shrinking database truncates the file');
    assert.ok(!existsSync(`${path}.redo`));
    assert.ok(CheckpointFile.open(path).bytes!.equals(c));
  });

  it('a crash halfway through applying: the complete redo file is applied again on open', async () => {
    const path = join(tempDir(), 'library.db');
    const a = image(50, (i) => i);
    await CheckpointFile.open(path).file.write(a);
    const b = image(50, (i) => (i % 10 === 3 ? 250 : i));
    const changed = [3, 13, 23, 33, 43];
    writeFileSync(`${path}.redo`, encodeRedo(b, PAGE, changed, preImageOf(a, PAGE)));
    // Only two of the five pages made it into library.db before the crash.
    const torn = Buffer.from(a);
    for (const i of [3, 13]) b.copy(torn, i * PAGE, i * PAGE, (i + 1) * PAGE);
    writeFileSync(path, torn);
    const { bytes } = CheckpointFile.open(path);
    assert.ok(bytes!.equals(b));
    assert.ok(!existsSync(`${path}.redo`));
  });

  it('a crash while the redo file was written: the incomplete redo file is dropped and library.db is as before', () => {
    const path = join(tempDir(), 'library.db');
    const a = image(20, (i) => i);
    writeFileSync(path, a);
    const redo = encodeRedo(
      image(20, () => 9),
      PAGE,
      [1, 2, 3],
      preImageOf(a, PAGE),
    );
    writeFileSync(`${path}.redo`, redo.subarray(0, redo.length - 100));
    assert.ok(CheckpointFile.open(path).bytes!.equals(a));
    assert.ok(!existsSync(`${path}.redo`));
  });

  it('a redo file left by a failed apply never outlives a later whole write (it would put older pages back)', async () => {
    const path = join(tempDir(), 'library.db');
    const { file } = CheckpointFile.open(path);
    await file.write(image(20, (i) => i));
    writeFileSync(
      `${path}.redo`,
      encodeRedo(
        image(20, () => 1),
        PAGE,
        [5],
        preImageOf(
          image(20, (i) => i),
          PAGE,
        ),
      ),
    );
    const c = image(20, (i) => 100 + i);
    assert.equal((await file.write(c)).mode, 'whole');
    assert.ok(!existsSync(`${path}.redo`));
    assert.ok(CheckpointFile.open(path).bytes!.equals(c));
  });

  it('a store that checkpoints page by page reopens whole (integrity ok, every row there)', async () => {
    const dir = tempDir();
    const s = await Store.open(dir, { idleCheckpointMs: 0 });
    const add = (from: number, n: number) =>
      s.write((tx) => {
        for (let i = from; i < from + n; i++)
          tx.run(
            `INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'studyset', ?, 'a', 'a')`,
            [`t${i}`, 'x'.repeat(200)],
          );
      });
    await add(0, 3000);
    await s.checkpoint();
    assert.equal(s.lastCheckpoint!.mode, 'whole');
    await add(3000, 5);
    await s.checkpoint();
    assert.equal(s.lastCheckpoint!.mode, 'pages');
    assert.ok(
      s.lastCheckpoint!.changedPages < s.lastCheckpoint!.pages / 10,
      `${s.lastCheckpoint!.changedPages} of ${s.lastCheckpoint!.pages} pages written`,
    );
    await s.close();
    const s2 = await Store.open(dir);
    assert.equal(s2.integrityCheck(), 'ok');
    assert.equal(s2.recovery.replayedRecords, 0);
    assert.equal(s2.get<{ n: number }>('SELECT count(*) AS n FROM topics')!.n, 3005);
    await s2.close();
  });
});

describe('redo file: it names the state of library.db it applies to', () => {
  const pageOf = (b: Buffer, i: number) => b.subarray(i * PAGE, (i + 1) * PAGE);

  it('a complete redo file made for an older state is set aside, never applied (even when only its own pages differ)', () => {
    const dir = tempDir();
    const path = join(dir, 'library.db');
    const a = image(30, (i) => i);
    const b = image(30, (i) => (i === 3 || i === 13 ? 200 : i));
    // A later checkpoint changed page 13 again: C differs from A only in the pages the redo targets.
    const c = image(30, (i) => (i === 3 ? 200 : i === 13 ? 201 : i));
    writeFileSync(path, c);
    writeFileSync(`${path}.redo`, encodeRedo(b, PAGE, [3, 13], preImageOf(a, PAGE)));
    const { bytes, staleRedoKeptAs } = CheckpointFile.open(path);
    assert.ok(bytes!.equals(c), 'library.db untouched');
    assert.ok(staleRedoKeptAs && staleRedoKeptAs.startsWith(`${path}.redo.stale-`) && existsSync(staleRedoKeptAs));
    assert.ok(!existsSync(`${path}.redo`));
  });

  it('a page torn at sector granularity (a power cut during the apply) is still repaired', () => {
    const path = join(tempDir(), 'library.db');
    const a = image(30, (i) => i);
    const b = image(32, (i) => (i % 10 === 3 ? 250 : i));
    writeFileSync(`${path}.redo`, encodeRedo(b, PAGE, [3, 13, 23, 30, 31], preImageOf(a, PAGE)));
    const torn = Buffer.concat([a, Buffer.alloc(PAGE)]); // grew by a page of zeros
    pageOf(b, 3).copy(torn, 3 * PAGE);
    pageOf(b, 13)
      .subarray(0, 1536)
      .copy(torn, 13 * PAGE); // three of eight sectors made it
    writeFileSync(path, torn);
    const { bytes, staleRedoKeptAs } = CheckpointFile.open(path);
    assert.equal(staleRedoKeptAs, undefined);
    assert.ok(bytes!.equals(b));
  });

  it('a page that is neither its pre- nor its post-image, sector by sector, is not repaired over', () => {
    const path = join(tempDir(), 'library.db');
    const a = image(10, (i) => i);
    const b = image(10, (i) => (i === 4 ? 99 : i));
    const other = Buffer.from(a);
    other.fill(77, 4 * PAGE + 1000, 4 * PAGE + 1100);
    writeFileSync(path, other);
    writeFileSync(`${path}.redo`, encodeRedo(b, PAGE, [4], preImageOf(a, PAGE)));
    const { bytes, staleRedoKeptAs } = CheckpointFile.open(path);
    assert.ok(staleRedoKeptAs);
    assert.ok(bytes!.equals(other));
  });

  it('a redo file of the previous build (no base state) is still applied, as that build would', () => {
    const path = join(tempDir(), 'library.db');
    const a = image(10, (i) => i);
    const b = image(10, (i) => (i === 2 ? 42 : i));
    writeFileSync(path, a);
    const legacy = Buffer.alloc(20 + 4 + PAGE + 4);
    legacy.write('SBREDO01', 0);
    legacy.writeUInt32LE(PAGE, 8);
    legacy.writeUInt32LE(10, 12);
    legacy.writeUInt32LE(1, 16);
    legacy.writeUInt32LE(2, 20);
    pageOf(b, 2).copy(legacy, 24);
    legacy.writeUInt32LE(crc32(legacy.subarray(0, legacy.length - 4)) >>> 0, legacy.length - 4);
    writeFileSync(`${path}.redo`, legacy);
    assert.ok(CheckpointFile.open(path).bytes!.equals(b));
  });

  it('the redo file a real page-wise checkpoint writes matches library.db at every point of its apply', async () => {
    const path = join(tempDir(), 'library.db');
    const { file } = CheckpointFile.open(path);
    const a = image(40, (i) => i);
    await file.write(a);
    const b = image(42, (i) => (i === 5 || i === 6 ? 123 : i));
    // Keep the redo file the checkpoint removes once applied.
    const fsp = require('node:fs/promises') as typeof import('node:fs/promises');
    const rm = fsp.rm;
    let redo: Buffer | undefined;
    fsp.rm = (async (p: string, o: unknown) => {
      if (String(p).endsWith('.redo')) redo = readFileSync(p);
      return rm(p, o as never);
    }) as typeof rm;
    try {
      assert.equal((await file.write(b)).mode, 'pages');
    } finally {
      fsp.rm = rm;
    }
    // A crash before the apply, halfway through it, and after it: each is finished from that redo file.
    const half = Buffer.concat([a, pageOf(b, 40)]);
    pageOf(b, 5).copy(half, 5 * PAGE);
    for (const state of [a, half, b]) {
      writeFileSync(path, state);
      writeFileSync(`${path}.redo`, redo!);
      const opened = CheckpointFile.open(path);
      assert.equal(opened.staleRedoKeptAs, undefined);
      assert.ok(opened.bytes!.equals(b));
    }
  });
});
