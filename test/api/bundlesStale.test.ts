import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';

/**
 * A 'preparing' row whose job is no longer in the slot: the job ended but its
 * 'failed' could not be saved (a full disk refused the write). It must not
 * say "preparing" forever: it answers as failed at once, and failStale (run
 * at start and when writes work again) records it.
 */
describe('bundles: a prepare that ended without its row saying so', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let topicid: string;
  let asy: string;

  before(async () => {
    t = await startBridge();
    asy = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(asy);
    topicid = (await t.client.createStudySet('Stale')).topicid;
  });
  after(async () => t.stop());

  const row = (id: string) =>
    t.bridge.services.store.get<{ state: string; error: string | null }>(
      'SELECT state, error FROM bundles WHERE bundle_id = ?',
      [id],
    )!;

  it('answers as failed in GET /bundles and to files/submit; failStale records it once, then writes nothing', async () => {
    const prepared = await t.client.request<{ bundleId: string }>('POST', '/bundles/prepare', {
      body: { topicid, bookmd5: asy, segments: [{ startPage: 19, endPage: 20 }] },
    });
    // What a refused 'failed' write leaves: the row as the job first wrote it.
    await t.bridge.services.store.write((tx) =>
      tx.run(`UPDATE bundles SET state = 'preparing' WHERE bundle_id = ?`, [prepared.bundleId]),
    );
    const listed = (
      await t.client.request<{ bundles: Array<Record<string, unknown>> }>('GET', '/bundles')
    ).bundles.find((b) => b.bundleId === prepared.bundleId)!;
    assert.equal(listed.state, 'failed');
    assert.match(String(listed.error), /prepare job ended without finishing/);
    assert.equal(listed.progress, undefined, 'no progress for a job that is not running');
    const files = await t.client.raw('GET', `/bundles/${prepared.bundleId}/files`);
    assert.equal(files.status, 409, files.text());
    assert.equal(files.json<any>().error.code, 'BUNDLE_FAILED');
    assert.equal(row(prepared.bundleId).state, 'preparing', 'not yet recorded');

    await t.bridge.services.bundlePrepare.failStale();
    assert.equal(row(prepared.bundleId).state, 'failed');
    assert.match(String(row(prepared.bundleId).error), /prepare job ended without finishing/);
    const digest = storeDigest(t.bridge.services.store);
    await t.bridge.services.bundlePrepare.failStale();
    assert.equal(storeDigest(t.bridge.services.store), digest, 'nothing stale left: no write');
  });

  it('leaves the running job alone: its row stays preparing', async () => {
    // OCR pages read right after upload keep the job waiting, so it is still running when failStale looks.
    const scan = (await upload(t, 'scanned-4ti2-p5-8.pdf')).bookmd5;
    const p = await t.client.request<{ bundleId: string }>('POST', '/bundles/prepare', {
      body: { topicid, bookmd5: scan, segments: [{ startPage: 4 }], anchorMode: 'block', async: true },
    });
    const job = t.bridge.services.bundles.runner.running;
    assert.equal(job?.bundleId, p.bundleId, 'the job is running');
    await t.bridge.services.bundlePrepare.failStale();
    assert.equal(row(p.bundleId).state, 'preparing');
    const listed = (
      await t.client.request<{ bundles: Array<Record<string, unknown>> }>('GET', '/bundles')
    ).bundles.find((b) => b.bundleId === p.bundleId)!;
    assert.deepEqual([listed.state, listed.running], ['preparing', true]);
    await t.client.request('POST', `/bundles/${p.bundleId}/discard`);
    await job.done;
    await t.bridge.services.extraction.whenReady(scan);
  });
});
