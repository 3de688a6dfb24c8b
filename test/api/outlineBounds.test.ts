import assert from 'node:assert/strict';
import { OUTLINE_LIMIT_BYTES } from '../../src/server/api/routes/outline';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

/**
 * POST /library/study-sets/import is bounded: a body over OUTLINE_LIMIT_BYTES
 * answers 413 PAYLOAD_TOO_LARGE, and a large outline whose parse runs over
 * its budget (the bridge option limits.outlineBudgetMs, here 1 ms, which no
 * worker can start within) answers 422 OUTLINE_TOO_COSTLY, confirmed or as a
 * dry run. Nothing is written, and the bridge keeps answering. Both codes are
 * in the route's OpenAPI errors.
 */

describe('outline import bounds: 413 over the body limit, 422 OUTLINE_TOO_COSTLY over the budget', function () {
  this.timeout(60_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge({ limits: { outlineBudgetMs: 1 } });
  });
  after(() => t.stop());

  /** An outline larger than the inline parse (64 KiB): it goes to a worker, which the 1 ms budget stops. */
  const large = `# Large\n${Array.from({ length: 4000 }, (_, i) => `- card ${i} of a large outline`).join('\n')}\n`;

  it(`a body over ${OUTLINE_LIMIT_BYTES} bytes: 413 PAYLOAD_TOO_LARGE with the limit, nothing written`, async () => {
    const before = storeDigest(t.bridge.services.store);
    const content = `# Big\n${'- a line of the outline\n'.repeat(Math.ceil(OUTLINE_LIMIT_BYTES / 23))}`;
    const res = await t.client.raw('POST', '/library/study-sets/import', {
      body: { format: 'md', content, confirm: true },
    });
    assert.equal(res.status, 413, res.text().slice(0, 300));
    const err = res.json<any>().error;
    assert.equal(err.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(err.details.limitBytes, OUTLINE_LIMIT_BYTES);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('a large outline over the parse budget: 422 OUTLINE_TOO_COSTLY, confirmed or dry run; nothing written', async () => {
    assert.ok(large.length > 64 * 1024);
    const before = storeDigest(t.bridge.services.store);
    for (const confirm of [true, false]) {
      const res = await t.client.raw('POST', '/library/study-sets/import', {
        body: { format: 'md', content: large, confirm },
      });
      assert.equal(res.status, 422, res.text().slice(0, 300));
      const err = res.json<any>().error;
      assert.equal(err.code, 'OUTLINE_TOO_COSTLY', `confirm ${confirm}`);
      assert.match(err.message, /was stopped; split it or simplify its Markdown\. Nothing was changed\./);
      assert.equal(err.details.budgetMs, 1);
      assert.equal((await t.client.raw('GET', '/status')).status, 200);
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
    // A small outline is parsed inline and imported as ever.
    const small = await t.client.raw('POST', '/library/study-sets/import', {
      body: { format: 'md', content: '# Small\n- one\n', confirm: true },
    });
    assert.equal(small.status, 200, small.text());
    assert.equal(small.json<any>().cards, 2);
  });

  it('the OpenAPI document lists 413 PAYLOAD_TOO_LARGE and 422 OUTLINE_TOO_COSTLY for the route', async () => {
    const doc = await t.client.call('GET /openapi.json');
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const responses = paths['/library/study-sets/import'].post.responses;
    const text = (status: string) => JSON.stringify(responses[status]);
    assert.match(text('413'), /PAYLOAD_TOO_LARGE/);
    for (const code of ['OUTLINE_TOO_COSTLY', 'TOO_MANY_CARDS', 'INVALID_OPML', 'INVALID_INPUT'])
      assert.match(text('422'), new RegExp(code), code);
  });
});
