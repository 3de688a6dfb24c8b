/**
 * Store.writeSliced: a write in steps with the event loop served between
 * them, still one transaction and one journal record: other writes wait and
 * land after it, a step that throws leaves nothing, and once acknowledged it
 * is all there after a reopen that replays the journal (as after kill -9).
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '../../src/server/ground/store/journal';
import { Store, type WriteTx } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';

const ROWS = 'SELECT content_id FROM page_parts ORDER BY rowid';
const INSERT = 'INSERT INTO page_parts(content_id, bookmd5, page, kind, created_at) VALUES (?, ?, 1, ?, ?)';
const insert = (tx: WriteTx, id: string) => tx.run(INSERT, [id, 'b', 'ink', 'now']);

describe('Store.writeSliced: steps with the loop between them, acknowledged whole or not at all', () => {
  it('serves the loop between steps; a write asked meanwhile waits and lands after; the journal replays it whole', async () => {
    const dir = tempDir();
    const store = await Store.open(dir, { idleCheckpointMs: 0 });
    const seen: string[] = [];
    let other: Promise<void> | undefined;
    let step = 0;
    const sliced = store.writeSliced((tx) => {
      step++;
      insert(tx, `s${step}`);
      if (step === 1)
        setImmediate(() => {
          seen.push(`loop after step ${step}`);
          seen.push(`a read between steps sees ${store.all(ROWS).length}`);
          other = store.write((t) => insert(t, 'other'));
        });
      return step === 3 ? { value: step } : undefined;
    });
    assert.equal(await sliced, 3);
    await other;
    assert.deepEqual(seen, ['loop after step 1', 'a read between steps sees 1']);
    assert.deepEqual(
      store.all<{ content_id: string }>(ROWS).map((r) => r.content_id),
      ['s1', 's2', 's3', 'other'],
    );
    // No close: a second open replays the journal alone.
    const replayed = await Store.open(dir, { idleCheckpointMs: 0 });
    assert.deepEqual(
      replayed.all<{ content_id: string }>(ROWS).map((r) => r.content_id),
      ['s1', 's2', 's3', 'other'],
    );
  });

  it('a step that throws rolls back the steps before it; writes that waited still land', async () => {
    const dir = tempDir();
    const store = await Store.open(dir, { idleCheckpointMs: 0 });
    let other: Promise<void> | undefined;
    let step = 0;
    const sliced = store.writeSliced((tx) => {
      step++;
      insert(tx, `s${step}`);
      if (step === 1)
        setImmediate(() => {
          other = store.write((t) => insert(t, 'other'));
        });
      if (step === 3) throw new Error('third step fails');
      return undefined;
    });
    await assert.rejects(sliced, /third step fails/);
    await other;
    assert.deepEqual(
      store.all<{ content_id: string }>(ROWS).map((r) => r.content_id),
      ['other'],
    );
    const replayed = await Store.open(dir, { idleCheckpointMs: 0 });
    assert.deepEqual(
      replayed.all<{ content_id: string }>(ROWS).map((r) => r.content_id),
      ['other'],
    );
  });
  it('a close rolls back a sliced write still running at its next step (BRIDGE_STOPPING) and refuses new ones', async () => {
    const dir = tempDir();
    const store = await Store.open(dir, { idleCheckpointMs: 0 });
    let steps = 0;
    let waited: Promise<void> | undefined;
    // A write that would never end on its own (an import far larger than a stop may wait for).
    const endless = store.writeSliced((tx) => {
      insert(tx, `s${++steps}`);
      if (steps === 1)
        setImmediate(() => {
          waited = store.write((t) => insert(t, 'waited'));
        });
      return undefined;
    });
    const failed = endless.then(
      () => assert.fail('an endless write was answered'),
      (e: { code?: string }) => e.code,
    );
    while (steps < 5) await new Promise((r) => setImmediate(r));
    await store.close();
    assert.equal(await failed, 'BRIDGE_STOPPING');
    await waited; // the write that waited behind it still lands
    const reopened = await Store.open(dir, { idleCheckpointMs: 0 });
    assert.deepEqual(
      reopened.all<{ content_id: string }>(ROWS).map((r) => r.content_id),
      ['waited'],
    );
    await assert.rejects(
      store.writeSliced(() => ({ value: 1 })),
      (e: Error) => /closed|BRIDGE_STOPPING/.test(`${e.message} ${(e as { code?: string }).code}`),
    );
    await reopened.close();
  });

  it('a long record is on file as it is encoded: acknowledged, it replays whole; rolled back, it is cut off before the next record', async () => {
    const dir = tempDir();
    const journalPath = join(dir, 'library.journal');
    const store = await Store.open(dir, { idleCheckpointMs: 0 });
    const big = (tx: WriteTx, id: string) => tx.run(INSERT, [id, 'b'.repeat(50_000), 'ink', 'now']);
    const onFileAt: number[] = [];
    const long = (prefix: string, fail: boolean) => {
      let step = 0;
      return store.writeSliced((tx) => {
        big(tx, `${prefix}${++step}`);
        if (step < 20) return undefined;
        onFileAt.push(statSync(journalPath).size - store.journalBytes);
        if (fail) throw new Error('the last step fails');
        return { value: step };
      });
    };
    assert.equal(await long('a', false), 20);
    // Before its append, much of its ~1 MB was already past the acknowledged records, not held in memory.
    assert.ok(onFileAt[0] > 300_000, `${onFileAt[0]} bytes on file before the append`);
    await assert.rejects(long('r', true), /the last step fails/);
    assert.ok(onFileAt[1] > 300_000);
    await store.write((t) => insert(t, 'other'));
    const read = readJournal(journalPath);
    assert.deepEqual([read.tornBytes, read.damaged.length], [0, 0]);
    assert.equal(statSync(journalPath).size, store.journalBytes);
    const replayed = await Store.open(dir, { idleCheckpointMs: 0 });
    const ids = replayed.all<{ content_id: string }>(ROWS).map((r) => r.content_id);
    assert.deepEqual(ids, [...Array.from({ length: 20 }, (_, i) => `a${i + 1}`), 'other']);
    await replayed.close();
    await store.close();
  });
});
