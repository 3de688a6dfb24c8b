import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { flateBombPdf } from '../helpers/hostileInput';

const MB = 1024 * 1024;

describe('a read that waits for pages whose extraction then fails', function () {
  this.timeout(120_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge();
  });
  after(async () => t?.stop());

  it('answers 422 EXTRACTION_FAILED with the reason, not 200 without the pages; later reads answer the same', async () => {
    // A small PDF whose one page inflates to 1 GB: its upload is stored, its extraction fails over the worker's budget.
    const up = await t.client.request<{ bookmd5: string; pageCount: number }>('POST', '/library/documents/upload', {
      bytes: await flateBombPdf(1024 * MB),
      query: { filename: 'bomb.pdf', confirm: '1' },
    });
    assert.equal(up.pageCount, 1);
    // Asked at once: the read waits for page 1 while the worker is still inflating.
    const waiting = await t.client.raw('GET', `/documents/${up.bookmd5}/pages`, { query: { start: 1 } });
    const outline = await t.client.call('GET /documents/{id}/outline', { params: { id: up.bookmd5 } });
    assert.equal(outline.extraction.state, 'failed', 'the read came back because the extraction ended');
    assert.equal(waiting.status, 422, waiting.text());
    const err = waiting.json<any>().error;
    assert.equal(err.code, 'EXTRACTION_FAILED');
    assert.match(err.message, /PDF_TOO_COMPLEX/);
    const later = await t.client.raw('GET', `/documents/${up.bookmd5}/pages`, { query: { start: 1 } });
    assert.equal(later.status, 422);
    assert.equal(later.json<any>().error.code, 'EXTRACTION_FAILED');
  });
});
