import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';
import { quotableLines, twentyCardTree, type Quote } from './cardBatchFixture';

describe('POST /study-sets/{id}/notes with cards: [...] (batch create)', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let setId: string;
  let rootId: string;
  let book: string;
  let quotes: Quote[];
  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Batch');
    setId = set.topicid;
    rootId = set.rootNoteId!;
    book = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
    quotes = await quotableLines((p, q) => t.client.request('GET', p, { query: q }), book, 10, 12, 16);
  });
  after(() => t.stop());

  const post = (body: Record<string, unknown>, id = setId) => t.client.raw('POST', `/study-sets/${id}/notes`, { body });

  async function refused(body: Record<string, unknown>, status: number, code: string, index?: number) {
    const before = storeDigest(t.bridge.services.store);
    const res = await post({ ...body, confirm: true });
    assert.equal(res.status, status, res.text());
    const err = res.json<any>().error;
    assert.equal(err.code, code, res.text());
    if (index !== undefined) {
      assert.equal(err.details.index, index, res.text());
      assert.match(err.message, new RegExp(`cards\\[${index}\\]|cards\\.${index}`));
    }
    assert.equal(storeDigest(t.bridge.services.store), before, `${code}: nothing written`);
    return err;
  }

  it('dry-run: without confirm the 422 lists what would be created and which excerpts would not anchor; nothing written', async () => {
    const cards = twentyCardTree(book, quotes);
    (cards[3] as any).excerpt.text = 'Zebras quietly juggle marmalade beneath violet submarines.';
    const before = storeDigest(t.bridge.services.store);
    const res = await post({ cards });
    assert.equal(res.status, 422);
    const { code, details } = res.json<any>().error;
    assert.equal(code, 'CONFIRM_REQUIRED');
    assert.equal(details.dryRun, true);
    assert.equal(details.wouldCreate, 20);
    assert.deepEqual(details.notAnchored, [3]);
    assert.deepEqual(details.cards[0], { index: 0, title: 'Chapter 1', parentNoteId: rootId });
    assert.deepEqual(details.cards[1].parentIndex, 0);
    assert.deepEqual(details.cards[1].excerpt, { bookmd5: book, page: quotes[0].page, anchored: true });
    assert.equal(details.cards[3].warnings[0].code, 'EXCERPT_NOT_ANCHORED');
    // One card without confirm previews alike; its refusals do not speak of a batch.
    const single = (await post({ title: 'Alone' })).json<any>().error;
    assert.deepEqual(
      [single.code, single.details.wouldCreate, single.details.cards],
      ['CONFIRM_REQUIRED', 1, [{ index: 0, title: 'Alone', parentNoteId: rootId }]],
    );
    const empty = (await post({ text: ' ' })).json<any>().error;
    assert.equal(empty.code, 'INVALID_INPUT');
    assert.doesNotMatch(empty.message, /cards\[/);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('a 20-card tree in one call: one write, one operation row, per-card answers, excerpts anchored, the tree in batch order', async () => {
    const opsBefore = t.bridge.services.store.all('SELECT * FROM operations').length;
    const res = await t.client.call('POST /study-sets/{id}/notes', {
      params: { id: setId },
      body: { cards: twentyCardTree(book, quotes), confirm: true },
    });
    assert.equal(res.persisted, true);
    assert.equal(res.count, 20);
    assert.ok(res.cards, 'one entry per card');
    assert.deepEqual(res.notAnchored, []);
    assert.deepEqual(
      res.cards.map((c) => c.index),
      [...Array(20).keys()],
    );
    for (const [i, c] of res.cards.entries()) {
      const chapter = i - (i % 5);
      assert.equal(c.parentNoteId, i % 5 === 0 ? rootId : res.cards[chapter].noteid, `card ${i}'s parent`);
      if (i % 5) {
        assert.equal(c.sourceAnchor.hasExcerpt, true);
        assert.equal(c.sourceAnchor.page, quotes[i - 1 - (i - (i % 5)) / 5].page);
        assert.ok(c.sourceAnchor.rect && c.sourceAnchor.rect.width > 0, `card ${i} anchored: ${JSON.stringify(c)}`);
      }
    }
    const ops = t.bridge.services.store.all<any>('SELECT * FROM operations ORDER BY op_seq');
    assert.equal(ops.length, opsBefore + 1, 'one operation: one undo step');
    assert.deepEqual(
      JSON.parse(ops.at(-1).note_ids),
      res.cards.map((c) => c.noteid),
    );
    const tree = await t.client.call('GET /study-sets/{id}/tree', { params: { id: setId } });
    assert.deepEqual(
      tree.nodes.slice(1).map((n) => n.noteid),
      res.cards.map((c) => c.noteid),
      'pre-order = batch order',
    );
    const read = await t.client.call('POST /notes/batch-get', { body: { noteIds: [res.cards[1].noteid] } });
    assert.deepEqual(
      read.notes[0].texts.map((x) => [x.index, x.text, x.excerpt]),
      [
        [0, quotes[0].text, true],
        [1, 'Why quote 0 matters.', false],
      ],
    );
  });

  it('refusals name the card index and write nothing: 201 cards, forward and self parentIndex, both parents, an empty card, an unknown book, cards beside single fields', async () => {
    const many = Array.from({ length: 201 }, (_, i) => ({ title: `c${i}` }));
    const tooMany = await refused({ cards: many }, 422, 'INVALID_INPUT');
    assert.match(tooMany.message, /200/);
    await refused(
      { cards: [{ title: 'a' }, { title: 'b', parentIndex: 2 }, { title: 'c' }] },
      422,
      'INVALID_PARENT_INDEX',
      1,
    );
    await refused({ cards: [{ title: 'a' }, { title: 'self', parentIndex: 1 }] }, 422, 'INVALID_PARENT_INDEX', 1);
    await refused(
      { cards: [{ title: 'a' }, { title: 'b', parentIndex: 0, parentNoteId: rootId }] },
      422,
      'INVALID_PARENT_INDEX',
      1,
    );
    await refused({ cards: [{ title: 'a' }, { title: 'b' }, { text: '   ' }] }, 422, 'INVALID_INPUT', 2);
    await refused(
      { cards: [{ title: 'a' }, { excerpt: { bookmd5: 'f'.repeat(32), page: 1, text: 'x' } }] },
      404,
      'DOCUMENT_NOT_FOUND',
      1,
    );
    await refused(
      { cards: [{ title: 'a' }, { excerpt: { bookmd5: book, page: 66001, text: 'x' } }] },
      422,
      'VIRTUAL_PAGE',
      1,
    );
    const bad = await refused({ cards: [{ title: 'a' }, { title: 42 }] }, 422, 'INVALID_INPUT');
    assert.match(JSON.stringify(bad.details), /cards\.1\.title|"cards",1,"title"|\["cards",1/);
    await refused({ cards: [{ title: 'a' }], title: 'single' }, 422, 'INVALID_INPUT');
    const other = await t.client.createStudySet('Other');
    await refused(
      { cards: [{ title: 'a' }, { title: 'b', parentNoteId: other.rootNoteId }] },
      422,
      'NOTES_IN_DIFFERENT_SETS',
      1,
    );
  });
});
