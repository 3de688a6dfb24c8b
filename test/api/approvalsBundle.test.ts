import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';
import { libraryDigest } from './approvalsFixture';

/** Issue 18 §2: a bundle's first submit runs at once; a submit that replaces an earlier import waits for the person. */
describe('approvals: a submit that replaces an earlier import (corpus book)', function () {
  this.timeout(180_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge({ approvals: 'destructive' });
  });
  after(() => t.stop());

  it('first submit: 200; second submit: 202 naming the import it replaces; deny keeps version 1', async () => {
    const asy = (await upload(t, 'asymptote.pdf')).bookmd5;
    const { topicid } = await t.client.createStudySet('Asymptote');
    await t.client.addDocumentToStudySet(topicid, asy);
    const prep = await t.client.request<{ bundleId: string }>('POST', '/bundles/prepare', {
      body: {
        topicid,
        bookmd5: asy,
        segments: [{ startPage: 19, endPage: 20, title: 'Drawing' }],
        preset: 'book-breakdown',
        anchorMode: 'page_text',
      },
    });
    const md = (title: string) => `# Drawing\n\n## ${title}\nPlain text written by the agent.\n`;
    const first = await t.client.raw('POST', `/bundles/${prep.bundleId}/submit`, {
      body: { resultMarkdown: md('Paths') },
    });
    assert.equal(first.status, 200, first.text());
    // The book's background extraction writes its row until it is ready: only then does the digest stand still.
    const state = () =>
      t.bridge.services.store.get<{ s: string }>('SELECT extraction_state AS s FROM documents WHERE bookmd5 = ?', [
        asy,
      ])!.s;
    while (state() !== 'ready') await new Promise((r) => setTimeout(r, 100));
    const before = libraryDigest(t.bridge.services.store);
    const second = await t.client.raw('POST', `/bundles/${prep.bundleId}/submit`, {
      body: { resultMarkdown: md('Pens') },
    });
    assert.equal(second.status, 202, second.text());
    const held = second.json<any>();
    assert.match(
      held.summary.text,
      new RegExp(`^test agent: replace the earlier import of bundle ${prep.bundleId} \\(version 1, \\d+ cards?\\)`),
    );
    assert.equal(libraryDigest(t.bridge.services.store), before);
    await t.owner.request('POST', `/approvals/${held.approvalId}/decide`, {
      body: { decision: 'deny', confirm: true },
    });
    assert.equal(libraryDigest(t.bridge.services.store), before, 'denied: the first import stands');
    const bundle = (await t.owner.call('GET /bundles')).bundles.find((b) => b.bundleId === prep.bundleId);
    assert.equal(bundle?.version, 1);
  });
});
