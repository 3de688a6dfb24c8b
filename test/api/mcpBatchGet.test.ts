// study_call and batch-get: how many cards of the usual size fit in one result (the guide says it, from the
// budget and a measured card size), and a cut batch-get continues with the ids not sent yet, a plain call.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cardsPerResult, DEFAULT_RESULT_BYTES, TYPICAL_CARD_BYTES } from '../../src/server/api/mcp/mcpBudget';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';

type Text = { type: string; text: string };

describe('MCP batch-get within the byte budget', function () {
  this.timeout(300_000);
  let t: TestBridge;
  let client: Client;
  const ids: string[] = [];
  before(async () => {
    t = await startBridge();
    client = new Client({ name: 'batch-get test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${t.bridge.token}` } },
      }),
    );
    // Cards as an agent makes them: a title, one sentence of the page as the excerpt, a sentence of its own.
    const book = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
    const set = await t.client.createStudySet('Batch-get');
    const pages = await t.client.call('GET /documents/{id}/pages', {
      params: { id: book },
      query: { start: '5', end: '12' },
    });
    const sentences: Array<{ page: number; text: string }> = pages.pages.flatMap((p) =>
      p.text
        .split(/(?<=\.)\s+/)
        .map((s) => s.replace(/\s+/g, ' ').trim())
        .filter((s) => s.length >= 60 && s.length <= 240 && /^[A-Z]/.test(s))
        .map((text) => ({ page: p.page, text })),
    );
    assert.ok(sentences.length >= 10, `${sentences.length} sentences`);
    for (let i = 0; ids.length < 3 * cardsPerResult() + 5; i++) {
      const s = sentences[i % sentences.length];
      const made = await t.client.call('POST /study-sets/{id}/notes', {
        params: { id: set.topicid },
        body: {
          title: s.text.split(/[,:;]/)[0].slice(0, 60),
          text: 'What this sentence says, in a line or two of the agent, as a card body usually holds.',
          excerpt: { bookmd5: book, page: s.page, text: s.text },
          confirm: true,
        },
      });
      ids.push(made.noteid!);
    }
  });
  after(async () => {
    await client.close();
    await t.stop();
  });

  const call = async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: 'study_call', arguments: args })) as {
      content: Text[];
      isError?: boolean;
    };
    assert.notEqual(r.isError, true, r.content[0]?.text.slice(0, 300));
    const bytes = r.content.reduce((n, c) => n + Buffer.byteLength(c.text), 0);
    return {
      answer: JSON.parse(r.content[0].text),
      note: r.content[1] ? JSON.parse(r.content[1].text) : undefined,
      bytes,
    };
  };

  it('the typical card size is what cards made from a book measure, and the guide says how many fit', async () => {
    const whole = await t.client.call('POST /notes/batch-get', { body: { noteIds: ids } });
    const average =
      whole.notes.reduce((n: number, c: unknown) => n + Buffer.byteLength(JSON.stringify(c)), 0) / ids.length;
    console.log(
      `      batch-get card: ${Math.round(average)} bytes on average (TYPICAL_CARD_BYTES ${TYPICAL_CARD_BYTES})`,
    );
    assert.ok(Math.abs(average - TYPICAL_CARD_BYTES) / TYPICAL_CARD_BYTES < 0.2, `${average} bytes a card`);
    const n = cardsPerResult();
    assert.ok(n >= 8 && n < 16, `${n} cards: 16 did not fit`);
    const guide = await t.client.guide();
    assert.match(guide, new RegExp(`about ${n} batch-get cards`));
    // That many come whole in one result; the next few do not fit.
    const fits = await call({ method: 'POST', path: '/notes/batch-get', body: { noteIds: ids.slice(0, n) } });
    assert.equal(fits.note, undefined, 'not cut');
    assert.equal(fits.answer.notes.length, n);
    assert.ok(fits.bytes <= DEFAULT_RESULT_BYTES);
    const over = await call({ method: 'POST', path: '/notes/batch-get', body: { noteIds: ids.slice(0, n + 3) } });
    assert.equal(over.note?.truncated, true);
  });

  it('a cut batch-get continues with a plain call for the ids not sent yet: every card once, in order; an unknown id reported once', async () => {
    const unknown = '00000000-0000-4000-8000-00000000dead';
    // Asked in small letters, as an agent may: the ids still match the cards' (answered in capitals).
    const asked = [...ids.slice(0, 7).map((id) => id.toLowerCase()), unknown, ...ids.slice(7)];
    const cards: any[] = [];
    const notFound: string[] = [];
    const results: number[] = [];
    for (let next: any = { method: 'POST', path: '/notes/batch-get', body: { noteIds: asked } }; next;) {
      const r = await call(next);
      assert.ok(r.bytes <= DEFAULT_RESULT_BYTES, `${r.bytes} bytes`);
      results.push(r.answer.notes.length);
      cards.push(...r.answer.notes);
      notFound.push(...r.answer.notFound);
      if (r.note?.truncated) {
        assert.equal(r.note.next.cursor, undefined, 'a plain call, as page ranges');
        const sent = new Set(cards.map((c) => c.noteid.toUpperCase()));
        assert.deepEqual(
          r.note.next.body.noteIds,
          asked.filter((id) => !sent.has(id.toUpperCase())),
        );
      }
      next = r.note?.next;
      assert.ok(results.length < 20);
    }
    assert.ok(results.length >= 3, `${results.join('+')} cards`);
    assert.deepEqual(
      cards.map((c) => c.noteid),
      ids,
    );
    assert.deepEqual(notFound, [unknown.toUpperCase()]);
  });
});
