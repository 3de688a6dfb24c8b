import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';

describe('scan slots: pages and toc-candidates share a concurrency of 2', function () {
  this.timeout(60_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('a third concurrent scan while two wait for extraction → 429 SCAN_BUSY with Retry-After; the two succeed', async () => {
    // Right after upload the last pages are not extracted yet: the first two scans hold their slots while they wait.
    const { bookmd5 } = await upload(t, 'asymptote.pdf');
    const [a, b, c] = await Promise.all([
      t.client.raw('GET', `/documents/${bookmd5}/pages`, { query: { start: 190, end: 196 } }),
      t.client.raw('GET', `/documents/${bookmd5}/toc-candidates`, { query: { start: 150, end: 196 } }),
      t.client.raw('GET', `/documents/${bookmd5}/pages`, { query: { start: 180, end: 189 } }),
    ]);
    const statuses = [a.status, b.status, c.status];
    assert.equal(statuses.filter((s) => s === 200).length, 2, `statuses ${statuses}`);
    const refused = [a, b, c].find((r) => r.status === 429)!;
    assert.equal(refused.json<any>().error.code, 'SCAN_BUSY');
    assert.equal(refused.json<any>().error.retryable, true);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(a.status === 200 ? a.json<any>().pages.length : 7, 7);
    await t.bridge.services.extraction.whenReady(bookmd5);
  });
});
