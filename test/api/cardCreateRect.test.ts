import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';

/** A sentence of page 10 of asymptote.pdf, verbatim (the text matcher finds it). */
const VERBATIM =
  'By default, Asymptote attempts to center the figure on the page, assuming that the paper type is letter.';

/** POST /study-sets/{id}/notes with excerpt.rect: the reader's selection is the anchor, as given. */
describe('POST /study-sets/{id}/notes with excerpt.rect (a selection made in the reader)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  let book: string;
  before(async () => {
    t = await startBridge();
    setId = (await t.client.createStudySet('Reader selections')).topicid;
    book = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
  });
  after(() => t.stop());

  const raw = (body: Record<string, unknown>) =>
    t.client.raw('POST', `/study-sets/${setId}/notes`, { body: { ...body, confirm: true } });
  const get = async (noteid: string) =>
    (await t.client.call('POST /notes/batch-get', { body: { noteIds: [noteid] } })).notes[0];

  it('the given rectangle is stored as the anchor instead of the text match; batch-get and tree read it back', async () => {
    // Where the matcher would put the sentence, and a different rectangle (a part of it, as a person might select).
    const matched = (
      await t.client.call('POST /documents/{id}/locate', { params: { id: book }, body: { page: 10, text: VERBATIM } })
    ).rect;
    assert.ok(matched && matched.width > 0);
    const rect = { x: matched.x + 10.25, y: matched.y + 1.5, width: 120.5, height: 11.75 };
    const res = await raw({ excerpt: { bookmd5: book, page: 10, text: VERBATIM, rect } });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.equal(body.persisted, true);
    assert.equal(body.warnings, undefined);
    assert.deepEqual(body.sourceAnchor, { hasExcerpt: true, bookmd5: book, page: 10, rect, rects: [rect] });
    const card = await get(body.noteid);
    assert.deepEqual(card.sourceAnchor, { hasExcerpt: true, bookmd5: book, page: 10, rect, rects: [rect] });
    assert.notDeepEqual(card.sourceAnchor.rect, matched, 'not the text match');
    assert.deepEqual(card.texts[0], { index: 0, text: VERBATIM, excerpt: true, noteid: body.noteid, kind: 'excerpt' });
    const node = (await t.client.call('GET /study-sets/{id}/tree', { params: { id: setId } })).nodes.find(
      (n) => n.noteid === body.noteid,
    );
    assert.ok(node);
    assert.deepEqual([node.hasExcerpt, node.page], [true, 10]);
  });

  it('a rectangle anchors even text the matcher would not find (the person selected it on the page)', async () => {
    const rect = { x: 72, y: 100, width: 200, height: 24 };
    const res = await raw({
      excerpt: { bookmd5: book, page: 3, text: 'text as the text layer gave it, hyphen-\nated', rect },
    });
    assert.equal(res.status, 200, res.text());
    assert.equal(res.json<any>().warnings, undefined);
    assert.deepEqual((await get(res.json<any>().noteid)).sourceAnchor.rect, rect);
  });

  it('without rect the text match still anchors (the route as before)', async () => {
    const res = await raw({ excerpt: { bookmd5: book, page: 10, text: VERBATIM } });
    const matched = (
      await t.client.call('POST /documents/{id}/locate', { params: { id: book }, body: { page: 10, text: VERBATIM } })
    ).rect;
    assert.deepEqual(res.json<any>().sourceAnchor.rect, matched);
  });

  const refusals: Array<[string, () => Record<string, unknown>, number, string]> = [
    [
      'negative x',
      () => ({ excerpt: { bookmd5: book, page: 10, text: 'x', rect: { x: -1, y: 0, width: 10, height: 10 } } }),
      422,
      'INVALID_INPUT',
    ],
    [
      'zero width',
      () => ({ excerpt: { bookmd5: book, page: 10, text: 'x', rect: { x: 1, y: 0, width: 0, height: 10 } } }),
      422,
      'INVALID_INPUT',
    ],
    [
      'a field missing',
      () => ({ excerpt: { bookmd5: book, page: 10, text: 'x', rect: { x: 1, y: 0, width: 10 } } }),
      422,
      'INVALID_INPUT',
    ],
    [
      'not a number',
      () => ({ excerpt: { bookmd5: book, page: 10, text: 'x', rect: { x: '1', y: 0, width: 10, height: 10 } } }),
      422,
      'INVALID_INPUT',
    ],
    [
      'beyond the page',
      () => ({ excerpt: { bookmd5: book, page: 10, text: 'x', rect: { x: 500, y: 700, width: 400, height: 400 } } }),
      422,
      'RECT_OUTSIDE_PAGE',
    ],
    [
      'a page beyond the book',
      () => ({ excerpt: { bookmd5: book, page: 9999, text: 'x', rect: { x: 1, y: 1, width: 10, height: 10 } } }),
      422,
      'PAGE_OUT_OF_RANGE',
    ],
    [
      'an unknown book',
      () => ({ excerpt: { bookmd5: 'f'.repeat(32), page: 1, text: 'x', rect: { x: 1, y: 1, width: 10, height: 10 } } }),
      404,
      'DOCUMENT_NOT_FOUND',
    ],
    [
      'blank text',
      () => ({ excerpt: { bookmd5: book, page: 10, text: '   ', rect: { x: 1, y: 1, width: 10, height: 10 } } }),
      422,
      'INVALID_INPUT',
    ],
  ];
  for (const [what, body, status, code] of refusals) {
    it(`refuses a rect with ${what}: ${status} ${code}, nothing written`, async () => {
      const before = storeDigest(t.bridge.services.store);
      const res = await raw(body());
      assert.equal(res.status, status, res.text());
      assert.equal(res.json<any>().error.code, code);
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  }
});
