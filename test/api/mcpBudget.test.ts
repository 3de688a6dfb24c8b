// Issue 18 §4: study_call results sized for an agent's context, through the official
// MCP Inspector CLI against the real bridge: a byte budget per result, cut at whole
// items with truncated:true and a next that fetches the rest; images scaled down.
import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { callToolJson, inspector, type ToolResult } from '../helpers/mcpInspectorCli';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';

const DEFAULT_BUDGET = 24 * 1024;
const textBytes = (r: ToolResult) =>
  r.content.reduce((n, c) => n + (c.type === 'text' ? Buffer.byteLength(c.text!) : 0), 0);
/** IHDR width and height of a PNG. */
const pngSize = (png: Buffer) => {
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
};

describe('MCP results sized for context (#18 §4, MCP Inspector CLI)', function () {
  this.timeout(600_000);
  let t: TestBridge;
  let book: string;
  const sizes: Array<[string, number]> = [];
  before(async () => {
    t = await startBridge();
    book = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
  });
  after(async () => {
    await t.stop();
    console.log(
      `      study_call text bytes per result:\n${sizes.map(([what, n]) => `        ${String(n).padStart(7)}  ${what}`).join('\n')}`,
    );
  });

  /** Calls study_call, then its next until the answer is whole; every result within `budget`. */
  async function follow(what: string, args: Record<string, unknown>, budget = DEFAULT_BUDGET) {
    const answers: any[] = [];
    const notes: any[] = [];
    for (let next: Record<string, unknown> | undefined = args; next;) {
      const r = await callToolJson(t, 'study_call', next);
      assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 500));
      const n = textBytes(r);
      sizes.push([`${what} #${answers.length + 1}`, n]);
      assert.ok(n <= budget, `${what} #${answers.length + 1}: ${n} bytes over ${budget}`);
      answers.push(JSON.parse(r.content[0].text!));
      const note = r.content[1] ? JSON.parse(r.content[1].text!) : { truncated: false };
      notes.push(note);
      assert.equal(note.truncated, note.next !== undefined);
      next = note.next;
      assert.ok(answers.length < 100, 'next keeps advancing');
    }
    return { answers, notes };
  }

  it('60 pages of a corpus book: each result ≤ 24 KB, truncated:true, next page ranges fetch the rest, no page lost or repeated', async () => {
    const full = await t.client.call('GET /documents/{id}/pages', {
      params: { id: book },
      query: { start: '1', end: '60' },
    });
    const fullBytes = Buffer.byteLength(JSON.stringify(full));
    sizes.push(['HTTP pages 1-60, whole', fullBytes]);
    assert.ok(fullBytes > 3 * DEFAULT_BUDGET, `60 pages are ${fullBytes} bytes: a real test of the budget`);

    const { answers, notes } = await follow('pages 1-60', {
      method: 'GET',
      path: `/documents/${book}/pages`,
      query: { start: 1, end: 60 },
    });
    assert.ok(answers.length >= 4, `${answers.length} results`);
    assert.equal(notes[0].truncated, true);
    // Page text continues by page range: a plain call of the route, no cursor.
    for (const note of notes.slice(0, -1)) {
      assert.equal(note.next.cursor, undefined);
      assert.equal(note.next.query.end, 60);
    }
    for (let i = 1; i < answers.length; i++) assert.equal(notes[i - 1].next.query.start, answers[i].pages[0].page);
    const pages = answers.flatMap((a) => a.pages);
    assert.deepEqual(
      pages.map((p) => p.page),
      full.pages.map((p) => p.page),
    );
    assert.deepEqual(pages, full.pages, 'the same text as the HTTP route, page for page');
    for (const a of answers) assert.equal(a.bookmd5, book);
  });

  it('maxBytes is respected; a page over the budget on its own is sent shortened, marked, and next still advances', async () => {
    const full = await t.client.call('GET /documents/{id}/pages', {
      params: { id: book },
      query: { start: '20', end: '25' },
    });
    const { answers } = await follow(
      'pages 20-25 maxBytes 8000',
      { method: 'GET', path: `/documents/${book}/pages`, query: { start: 20, end: 25 }, maxBytes: 8000 },
      8000,
    );
    assert.ok(answers.length >= 2);
    assert.deepEqual(
      answers.flatMap((a) => a.pages),
      full.pages,
    );

    const big = full.pages.find((p) => Buffer.byteLength(JSON.stringify(p)) > 2500);
    assert.ok(big, 'a page over 2.5 KB');
    const small = await follow(
      'one page, maxBytes 2048',
      {
        method: 'GET',
        path: `/documents/${book}/pages`,
        query: { start: big.page, end: big.page + 1 },
        maxBytes: 2048,
      },
      2048,
    );
    assert.equal(small.answers[0].pages.length, 1);
    const sent = small.answers[0].pages[0];
    assert.equal(sent.page, big.page);
    assert.match(sent.text, /…\[\d+ more characters cut: over the byte budget\]$/);
    const kept = sent.text.replace(/…\[\d+ more characters cut.*$/, '');
    assert.ok(big.text.startsWith(kept) && kept.length > 500, 'the start of the page, verbatim');
    assert.deepEqual(small.notes[0].shortened, [
      { field: 'pages', index: 0, fullBytes: Buffer.byteLength(JSON.stringify(big)) },
    ]);
    assert.equal(small.notes[0].next.query.start, big.page + 1);
    assert.deepEqual(
      small.answers.flatMap((a) => a.pages.map((p: any) => p.page)),
      [big.page, big.page + 1],
    );
  });

  it('a list (the card tree of a 200-card set) and a map (OpenAPI paths) continue with a cursor: same items as HTTP, in order, each once', async () => {
    const set = await t.client.createStudySet('Many cards');
    const cards = Array.from({ length: 200 }, (_, i) => ({
      title: `Card ${i + 1}: ${'a long enough title to weigh something '.repeat(2)}`,
      text: `Body ${i + 1}`,
    }));
    await t.client.request('POST', `/study-sets/${set.topicid}/notes`, { body: { cards, confirm: true } });
    const full = await t.client.call('GET /study-sets/{id}/tree', { params: { id: set.topicid } });
    assert.equal(full.nodes.length, 201);
    const { answers, notes } = await follow('tree of 200 cards', {
      method: 'GET',
      path: `/study-sets/${set.topicid}/tree`,
    });
    assert.ok(answers.length >= 3, `${answers.length} results`);
    assert.deepEqual(notes[0].next.cursor, { field: 'nodes', from: answers[0].nodes.length });
    assert.deepEqual(notes[0].sent, [{ field: 'nodes', from: 0, count: answers[0].nodes.length, of: 201 }]);
    assert.deepEqual(
      answers.flatMap((a) => a.nodes),
      full.nodes,
    );
    for (const a of answers) assert.deepEqual([a.topicid, a.count], [full.topicid, full.count]);
    // A map of records is cut by entry: OpenAPI's paths for one tag (over 24 KB).
    const spec = await t.client.call('GET /openapi.json', { query: { tag: 'decks' } });
    const specPieces = await follow('openapi.json?tag=decks', {
      method: 'GET',
      path: '/openapi.json',
      query: { tag: 'decks' },
    });
    assert.ok(specPieces.answers.length >= 2);
    assert.deepEqual(
      specPieces.answers.flatMap((a) => Object.keys(a.paths)),
      Object.keys(spec.paths as object),
    );
    assert.deepEqual(Object.assign({}, ...specPieces.answers.map((a) => a.paths)), spec.paths);
  });

  it("a write's cut answer is held, never run again: next carries no body and returns the rest of the same receipt", async () => {
    const set = await t.client.createStudySet('Written once');
    const cards = Array.from({ length: 60 }, (_, i) => ({ title: `Receipt card ${i + 1}` }));
    const before = (await t.client.call('GET /study-sets/{id}/tree', { params: { id: set.topicid } })).count;
    const { answers, notes } = await follow(
      'batch of 60 cards, maxBytes 3000',
      { method: 'POST', path: `/study-sets/${set.topicid}/notes`, body: { cards, confirm: true }, maxBytes: 3000 },
      3000,
    );
    assert.ok(answers.length >= 2);
    assert.equal(notes[0].next.body, undefined);
    assert.match(notes[0].next.cursor.held, /^[0-9a-f]{24}$/);
    const got = answers.flatMap((a) => a.cards);
    assert.deepEqual(
      got.map((c) => c.index),
      cards.map((_, i) => i),
    );
    assert.deepEqual(
      got.map((c) => c.title),
      cards.map((c) => c.title),
    );
    const tree = await t.client.call('GET /study-sets/{id}/tree', { params: { id: set.topicid } });
    assert.equal(tree.count, before + 60, 'the cards were written once');
    // Another token cannot read the held answer.
    const other = await t.bridge.services.tokens.issue('other agent', 'write');
    const viaOther = await inspector({ ...t, bridge: { ...t.bridge, token: other.token } }, [
      '--method',
      'tools/call',
      '--tool-name',
      'study_call',
      '--tool-args-json',
      JSON.stringify(notes[0].next),
    ]);
    assert.equal(viaOther.isError, true);
    assert.equal(JSON.parse(viaOther.content[0].text).error.code, 'RESULT_EXPIRED');
  });

  it('bad maxBytes, imageMaxPx or cursor: a tool error with a code, nothing run', async () => {
    const digest = storeDigest(t.bridge.services.store);
    const create = { method: 'POST', path: '/library/study-sets', body: { title: 'Must not exist', confirm: true } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ maxBytes: 200_000 }, 'INVALID_MAX_BYTES'],
      [{ maxBytes: 100 }, 'INVALID_MAX_BYTES'],
      [{ maxBytes: 4096.5 }, 'INVALID_MAX_BYTES'],
      [{ imageMaxPx: 10 }, 'INVALID_IMAGE_MAX_PX'],
      [{ cursor: { from: -1 } }, 'INVALID_CURSOR'],
      [{ cursor: { field: 'cards', from: 0, held: 'ffffffffffffffffffffffff' } }, 'RESULT_EXPIRED'],
    ];
    for (const [extra, code] of cases) {
      const r = await callToolJson(t, 'study_call', { ...create, ...extra });
      assert.equal(r.isError, true, JSON.stringify(extra));
      const err = JSON.parse(r.content[0].text!).error;
      assert.equal(err.code, code, JSON.stringify(extra));
      assert.ok(err.message.length > 20);
    }
    const wrongType = await callToolJson(t, 'study_call', { ...create, maxBytes: 'lots' });
    assert.equal(wrongType.isError, true);
    assert.match(wrongType.content[0].text!, /maxBytes/);
    assert.equal(storeDigest(t.bridge.services.store), digest, 'nothing was written');
    const sets = await t.client.call('GET /library/study-sets', { query: { query: 'Must not exist' } });
    assert.deepEqual(sets.studySets, []);
  });

  it('an image result is at most 1568 px on its long edge, aspect kept; a smaller imageMaxPx is honoured; a small one is unchanged', async () => {
    const set = await t.client.createStudySet('Tall render');
    const text = Array.from(
      { length: 80 },
      (_, i) => `Line ${i + 1} of a card long enough to render taller than 1568 pixels.`,
    ).join('\n');
    const card = await t.client.call('POST /study-sets/{id}/notes', {
      params: { id: set.topicid },
      body: { title: 'Tall', text, confirm: true },
    });
    const path = `/notes/${card.noteid}/render`;
    const direct = await t.client.raw('GET', path, { query: { width: 1200 } });
    const [w0, h0] = pngSize(direct.bytes);
    assert.ok(Math.max(w0, h0) > 1568, `the route's PNG is ${w0}×${h0}`);

    const r = await callToolJson(t, 'study_call', { method: 'GET', path, query: { width: 1200 } });
    assert.equal(r.content[0].type, 'image');
    assert.equal(r.content[0].mimeType, 'image/png');
    const [w, h] = pngSize(Buffer.from(r.content[0].data!, 'base64'));
    assert.equal(Math.max(w, h), 1568);
    assert.ok(Math.abs(w / h - w0 / h0) < 0.01, `aspect ${w}×${h} vs ${w0}×${h0}`);
    sizes.push([`render ${w0}×${h0} → ${w}×${h}, base64 chars`, r.content[0].data!.length]);

    const small = await callToolJson(t, 'study_call', { method: 'GET', path, query: { width: 1200 }, imageMaxPx: 400 });
    const [ws, hs] = pngSize(Buffer.from(small.content[0].data!, 'base64'));
    assert.equal(Math.max(ws, hs), 400);

    const larger = await callToolJson(t, 'study_call', {
      method: 'GET',
      path,
      query: { width: 1200 },
      imageMaxPx: 4096,
    });
    assert.ok(
      Buffer.from(larger.content[0].data!, 'base64').equals(direct.bytes),
      'within imageMaxPx: the route bytes unchanged',
    );
  });

  it('tools/list: study_call documents maxBytes, imageMaxPx and cursor; the tool hints still hold', async () => {
    const { tools } = await inspector(t, ['--method', 'tools/list']);
    const call = tools.find((x: any) => x.name === 'study_call');
    for (const k of ['maxBytes', 'imageMaxPx', 'cursor']) assert.ok(call.inputSchema.properties[k]?.description, k);
    assert.match(call.description, /truncated:true, next/);
    assert.deepEqual([call.annotations.readOnlyHint, call.annotations.destructiveHint], [false, true]);
    assert.equal(tools.find((x: any) => x.name === 'study_guide').annotations.readOnlyHint, true);
  });
});
