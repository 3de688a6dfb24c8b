import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointFile, encodeRedo } from '../../src/server/store/checkpointFile';
import { Store } from '../../src/server/store/store';
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
    assert.deepEqual(await file.write(b), { mode: 'pages', pages: 103, changedPages: 5 }, 'pages 7 and 50, three new at the end (page 0 keeps its header)');
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
    writeFileSync(`${path}.redo`, encodeRedo(b, PAGE, 50, changed));
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
    const redo = encodeRedo(image(20, () => 9), PAGE, 20, [1, 2, 3]);
    writeFileSync(`${path}.redo`, redo.subarray(0, redo.length - 100));
    assert.ok(CheckpointFile.open(path).bytes!.equals(a));
    assert.ok(!existsSync(`${path}.redo`));
  });

  it('a redo file left by a failed apply never outlives a later whole write (it would put older pages back)', async () => {
    const path = join(tempDir(), 'library.db');
    const { file } = CheckpointFile.open(path);
    await file.write(image(20, (i) => i));
    writeFileSync(`${path}.redo`, encodeRedo(image(20, () => 1), PAGE, 20, [5]));
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
        for (let i = from; i < from + n; i++) tx.run(`INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'studyset', ?, 'a', 'a')`, [`t${i}`, 'x'.repeat(200)]);
      });
    await add(0, 3000);
    await s.checkpoint();
    assert.equal(s.lastCheckpoint!.mode, 'whole');
    await add(3000, 5);
    await s.checkpoint();
    assert.equal(s.lastCheckpoint!.mode, 'pages');
    assert.ok(s.lastCheckpoint!.changedPages < s.lastCheckpoint!.pages / 10, `${s.lastCheckpoint!.changedPages} of ${s.lastCheckpoint!.pages} pages written`);
    await s.close();
    const s2 = await Store.open(dir);
    assert.equal(s2.integrityCheck(), 'ok');
    assert.equal(s2.recovery.replayedRecords, 0);
    assert.equal(s2.get<{ n: number }>('SELECT count(*) AS n FROM topics')!.n, 3005);
    await s2.close();
  });
});
