import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { corpusDir, corpusFile } from '../unit/pdfCorpus';
import { quotableLines, twentyCardTree } from './cardBatchFixture';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The whole job through the v2 client on 2026-07-28 (no handshake, no
 * session): list tools, add a corpus book with study_upload, make an anchored
 * card tree, a deck, and review a card. The 2025-11-25 counterpart, with the
 * MCP Inspector CLI, is mcpWholeJob.test.ts.
 */
describe('MCP 2026-07-28 with the v2 client: the whole job', function () {
  this.timeout(300_000);
  let t: TestBridge;
  let client: Client;
  before(async () => {
    t = await startBridge({ importFolders: [corpusDir] });
    const token = (t.client as unknown as { token: string }).token;
    client = new Client(
      { name: 'v2-agent', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
  });
  after(async () => {
    await client.close();
    await t.stop();
  });

  const json = (r: any) => {
    assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 400));
    return JSON.parse(r.content[0].text);
  };
  const call = async (method: string, path: string, opts: { query?: object; body?: object } = {}) =>
    json(await client.callTool({ name: 'study_call', arguments: { method, path, ...opts } }));

  it('upload, anchored tree, deck, review', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), [
      'study_call',
      'study_guide',
      'study_review_grade',
      'study_review_next',
      'study_upload',
    ]);
    const set = await call('POST', '/library/study-sets', { body: { title: 'Asymptote, v2 client', confirm: true } });
    const up = json(
      await client.callTool({
        name: 'study_upload',
        arguments: { path: corpusFile('asymptote.pdf'), topicid: set.topicid },
      }),
    );
    assert.deepEqual([up.created, up.addedToStudySet], [true, true]);
    const book = up.bookmd5;
    for (let i = 0; ; i++) {
      if ((await call('GET', `/documents/${book}/outline`)).extraction.state === 'ready') break;
      assert.ok(i < 120, 'extraction never ready');
      await delay(1000);
    }
    const quotes = await quotableLines((path, query) => call('GET', path, { query }), book, 10, 12, 16);
    const made = await call('POST', `/study-sets/${set.topicid}/notes`, {
      body: { cards: twentyCardTree(book, quotes), confirm: true },
    });
    assert.deepEqual([made.persisted, made.count, made.notAnchored], [true, 20, []]);
    const anchored = made.cards.filter((c: any) => c.sourceAnchor.hasExcerpt);
    for (const c of anchored) assert.ok(c.sourceAnchor.rect, `card ${c.index} anchored`);
    const deck = await call('POST', '/decks', { body: { title: 'v2 deck', confirm: true } });
    await call('POST', `/decks/${deck.deckId}/cards`, {
      body: { cards: anchored.slice(0, 3).map((c: any) => ({ sourceNoteId: c.noteid })), confirm: true },
    });
    const due = await call('GET', `/decks/${deck.deckId}/due`);
    assert.equal(due.count, 3);
    const graded = await call('POST', `/decks/${deck.deckId}/reviews`, {
      body: { cardNoteId: due.cards[0].cardNoteId, rating: 'good', confirm: true },
    });
    assert.equal(graded.persisted, true);
    assert.equal((await call('GET', `/decks/${deck.deckId}/due`)).count, 2);
  });
});
