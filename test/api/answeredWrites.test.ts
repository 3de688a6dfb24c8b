import assert from 'node:assert/strict';
import type { BridgeClient } from '../../src/client/bridgeClient';
import { readFileSync } from 'node:fs';
import { createCard, FaultyBridge, titles } from './faultsFixture';
import { corpusFile } from '../unit/pdfCorpus';

/**
 * Answered = true: a write answered as failed is not there (not visible, not
 * checkpointed into library.db, not replayed after kill -9), and the journal
 * is tried again on the next write. Faults come from the LD_PRELOAD shim on a
 * child bridge.
 */
describe('answered = true: a failed journal append leaves nothing behind', function () {
  this.timeout(120_000);
  let f: FaultyBridge;
  let client: BridgeClient;
  let setId: string;

  before(async function () {
    const made = FaultyBridge.create();
    if (!made) return this.skip(); // no C compiler for the shim
    f = made;
    client = await f.start();
    setId = (await client.createStudySet('Faults')).topicid;
  });
  after(() => f?.dispose());

  // First: on a store that marks itself broken after one failure, later tests would pass vacuously.
  it('writes queued behind a failing batch: every 200 is there and every failure is not, now and after kill -9', async () => {
    f.shim.arm('fsync', 1, 'EIO', 'library.journal');
    const names = Array.from({ length: 6 }, (_, i) => `burst ${i}`);
    const answers = await Promise.all(names.map((n) => createCard(client, setId, n)));
    const ok = names.filter((_, i) => answers[i].status === 200);
    const failed = names.filter((_, i) => answers[i].status !== 200);
    for (const a of answers) assert.ok([200, 503].includes(a.status), a.text());
    assert.ok(failed.length >= 1, 'the first batch failed');
    const check = async () => {
      const now = await titles(client, setId);
      for (const n of ok) assert.ok(now.includes(n), `${n} (answered 200) is there`);
      for (const n of failed) assert.ok(!now.includes(n), `${n} (answered ${answers[names.indexOf(n)].status}) is not`);
    };
    await check();
    await f.kill9();
    client = await f.start();
    await check();
  });

  it('ENOSPC on the journal write → 507 INSUFFICIENT_STORAGE (retryable, freeBytes); the card is not there, and the next write works without a restart', async () => {
    f.shim.arm('write', 1, 'ENOSPC', 'library.journal');
    const res = await createCard(client, setId, 'no space');
    assert.equal(res.status, 507);
    const err = res.json<any>().error;
    assert.equal(err.code, 'INSUFFICIENT_STORAGE');
    assert.equal(err.retryable, true);
    assert.equal(typeof err.details.freeBytes, 'number');
    assert.ok(!(await titles(client, setId)).includes('no space'), 'not visible');
    f.shim.clear();
    const ok = await createCard(client, setId, 'after space is back');
    assert.equal(ok.status, 200, ok.text());
    const now = await titles(client, setId);
    assert.ok(now.includes('after space is back') && !now.includes('no space'));
  });

  it('EIO from the journal fsync → 503 STORE_UNAVAILABLE (retryable); a client retry makes exactly one card', async () => {
    f.shim.arm('fsync', 1, 'EIO', 'library.journal');
    const res = await createCard(client, setId, 'io error');
    assert.equal(res.status, 503);
    const err = res.json<any>().error;
    assert.equal(err.code, 'STORE_UNAVAILABLE');
    assert.equal(err.retryable, true);
    assert.doesNotMatch(err.message, /restart/);
    assert.ok(!(await titles(client, setId)).includes('io error'));
    // The fault was one call: the retry goes through.
    const retry = await createCard(client, setId, 'io error');
    assert.equal(retry.status, 200, retry.text());
    assert.equal((await titles(client, setId)).filter((t) => t === 'io error').length, 1);
  });

  // The tree is kept serialised between writes (http/answerCache.ts): one read while the failing batch was in flight
  // may show its card (memory runs one batch ahead of the disk), but it must not be kept as the answer after it.
  it('a tree read while a failing write is in flight is not kept: the next read has no trace of the card', async () => {
    assert.equal((await createCard(client, setId, 'before')).status, 200); // no answer kept from before this
    f.shim.arm('fsync', 1, 'SLOW_EIO', 'library.journal');
    const answer = createCard(client, setId, 'in flight');
    await new Promise((r) => setTimeout(r, 150)); // the fsync is failing, slowly
    await titles(client, setId);
    assert.equal((await answer).status, 503);
    f.shim.clear();
    assert.ok(!(await titles(client, setId)).includes('in flight'));
  });

  it('the change feed never announces a failed write', async () => {
    const { revision } = await client.request<{ revision: number }>('GET', '/library/changes', { query: { since: 0 } });
    const poll = client.request<{ revision: number; changed: boolean }>('GET', '/library/changes', {
      query: { since: revision, waitMs: 1500 },
    });
    await new Promise((r) => setTimeout(r, 200));
    f.shim.arm('fsync', 1, 'EIO', 'library.journal');
    assert.equal((await createCard(client, setId, 'unannounced')).status, 503);
    f.shim.clear();
    assert.deepEqual(await poll, { bridgeApiVersion: '1.0', revision, changed: false });
  });

  it('a failed write is not checkpointed into library.db at a clean stop', async () => {
    f.shim.arm('write', 1, 'ENOSPC', 'library.journal');
    assert.equal((await createCard(client, setId, 'never stored')).status, 507);
    f.shim.clear();
    assert.equal(await f.stop(), 0);
    const onDisk = await f.titlesInLibraryDb(setId);
    assert.ok(onDisk.includes('after space is back'), 'acknowledged cards are in library.db');
    assert.ok(!onDisk.includes('never stored') && !onDisk.includes('no space'), 'failed ones are not');
    client = await f.start();
  });

  it('when cutting the failed batch off fails too, the next write repairs the journal first: nothing of the failed batch comes back after kill -9', async () => {
    f.shim.arm('fsync', 1, 'EIO', 'library.journal', 2); // the append's fsync and the cut-back's fsync
    assert.equal(
      (await createCard(client, setId, 'ghost with a long title that outgrows the next record')).status,
      503,
    );
    f.shim.clear();
    assert.equal((await createCard(client, setId, 'next')).status, 200);
    await f.kill9();
    client = await f.start();
    const now = await titles(client, setId);
    assert.ok(now.includes('next'));
    assert.ok(!now.some((t) => t.startsWith('ghost')));
  });

  // A prepare's row is written before its files: when the files then fail for space and so do the journal
  // appends of its 'failed' state and of its removal, the answer is 507 and nothing was prepared, so the
  // list must not show it; the row goes once writes work again (the full-disk test met this by chance).
  it('a prepare answered 507 whose row could not be removed either is not listed; the row goes once writes work', async () => {
    const cad = readFileSync(corpusFile('CAD.pdf'));
    const { bookmd5 } = await client.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
      query: { filename: 'cad.pdf', topicid: setId, confirm: '1' },
      bytes: cad,
    });
    for (let i = 0; ; i++) {
      const docs = await client.request<{ documents: Array<{ bookmd5: string; extractionState: string }> }>(
        'GET',
        `/study-sets/${setId}/documents`,
      );
      if (docs.documents.find((d) => d.bookmd5 === bookmd5)?.extractionState === 'ready') break;
      assert.ok(i < 150, 'the PDF was extracted');
      await new Promise((r) => setTimeout(r, 200));
    }
    const listed = async () =>
      (await client.request<{ bundles: Array<{ bundleId: string }> }>('GET', '/bundles')).bundles.map(
        (b) => b.bundleId,
      );
    const before = await listed();
    f.shim.resetLog();
    // Every write into the data dir after the first (the row's journal append) fails for space, until cleared.
    f.shim.arm('write', 2, 'ENOSPC', f.dataDir, 0);
    const body = {
      topicid: setId,
      bookmd5,
      segments: [{ startPage: 1, endPage: 2 }],
      preset: 'book-breakdown',
      anchorMode: 'page_text',
    };
    const answer = await client.raw('POST', '/bundles/prepare', { body });
    assert.equal(answer.status, 507, answer.text());
    const failedJournal = f.shim.calls().filter((c) => c.injected && c.path.endsWith('library.journal')).length;
    assert.ok(
      failedJournal >= 2,
      `the 'failed' state and the removal were both refused (${failedJournal} journal writes failed)`,
    );
    assert.deepEqual(await listed(), before, 'not listed while the disk is full');
    f.shim.clear();
    // The next prepare removes the row first (so does the disk being seen writable again).
    const again = await client.request<{ bundleId: string; state: string }>('POST', '/bundles/prepare', { body });
    assert.equal(again.state, 'prepared');
    await f.kill9();
    client = await f.start();
    assert.deepEqual(
      await listed(),
      [...before, again.bundleId],
      'after kill -9: the refused prepare is gone, the next one is there',
    );
  });
});
