import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { CardBody } from '../helpers/libraryFixtures';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

/** Three pages; "The REAL type." stands on pages 2 and 3 (a heading and its mention in the next section). */
async function typesPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = [
    ['Chapter two describes the numeric types of the language.', 'Each type has a range and a precision.'],
    ['Numbers with a fraction are stored in floating point.', 'The REAL type.', 'It holds a single precision value.'],
    ['The REAL type.', 'Its precision is that of a double on every platform we support.'],
  ];
  for (const lines of pages) {
    const page = doc.addPage([400, 300]);
    lines.forEach((l, i) => page.drawText(l, { x: 40, y: 250 - i * 20, size: 11, font }));
  }
  return doc.save();
}

describe('excerpts that stand on several pages: locate and card creation', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let book: string;
  let setId: string;
  before(async () => {
    t = await startBridge();
    setId = (await t.client.createStudySet('Types')).topicid;
    book = (
      await t.client.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
        bytes: Buffer.from(await typesPdf()),
        query: { filename: 'types.pdf', confirm: '1' },
      })
    ).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
    await t.client.addDocumentToStudySet(setId, book);
  });
  after(() => t.stop());

  const locate = (page: number, text: string) =>
    t.client.call('POST /documents/{id}/locate', { params: { id: book }, body: { page, text } });
  const create = (body: CardBody) =>
    t.client.call('POST /study-sets/{id}/notes', { params: { id: setId }, body: { ...body, confirm: true } });

  it('locate answers the other pages the text stands on', async () => {
    const on3 = await locate(3, 'The REAL type.');
    assert.deepEqual([on3.found, on3.ambiguous, on3.alsoOn], [true, true, [2]]);
    const on1 = await locate(1, 'The REAL type.');
    assert.deepEqual([on1.found, on1.ambiguous, on1.alsoOn], [false, true, [2, 3]]);
    const once = await locate(3, 'Its precision is that of a double on every platform');
    assert.deepEqual([once.found, once.ambiguous, once.alsoOn], [true, undefined, undefined]);
  });

  it('card creation anchors on the page given and says where else it stands; on none of them, 422 AMBIGUOUS_EXCERPT', async () => {
    const res = await create({ excerpt: { bookmd5: book, page: 3, text: 'The REAL type.' } });
    assert.equal(res.sourceAnchor?.page, 3);
    assert.ok(res.sourceAnchor?.rect && res.sourceAnchor.rect.y < 40, JSON.stringify(res.sourceAnchor?.rect));
    assert.deepEqual([res.ambiguous, res.alsoOn], [true, [2]]);
    assert.deepEqual(
      res.warnings?.map((w) => [w.code, 'alsoOn' in w ? w.alsoOn : undefined]),
      [['EXCERPT_AMBIGUOUS', [2]]],
    );

    const before = (await t.client.call('GET /study-sets/{id}/tree', { params: { id: setId } })).count;
    const refused = await t.client.raw('POST', `/study-sets/${setId}/notes`, {
      body: { excerpt: { bookmd5: book, page: 1, text: 'The REAL type.' }, confirm: true },
    });
    assert.equal(refused.status, 422);
    const err = refused.json<any>();
    assert.equal(err.error.code, 'AMBIGUOUS_EXCERPT');
    assert.deepEqual(err.error.details.alsoOn, [2, 3]);
    assert.equal(
      (await t.client.call('GET /study-sets/{id}/tree', { params: { id: setId } })).count,
      before,
      'nothing written',
    );

    const batch = await create({
      cards: [
        { excerpt: { bookmd5: book, page: 2, text: 'The REAL type.' } },
        { excerpt: { bookmd5: book, page: 3, text: 'Its precision is that of a double on every platform' } },
      ],
    });
    assert.deepEqual(
      batch.cards?.map((c) => [c.sourceAnchor?.page, c.ambiguous, c.alsoOn]),
      [
        [2, true, [3]],
        [3, undefined, undefined],
      ],
    );
  });

  it('with excerpt.near (Make card) the page is the selection’s, and the other pages are answered all the same', async () => {
    // The box over "The REAL type." on page 3 (its first line, baseline 250 of 300: top-left y ≈ 40..54).
    const near = { x: 38, y: 38, width: 90, height: 16 };
    const res = await create({ excerpt: { bookmd5: book, page: 3, text: 'The REAL type.', near } });
    assert.equal(res.sourceAnchor?.page, 3);
    assert.ok(res.sourceAnchor?.rect && res.sourceAnchor.rect.y < 60, JSON.stringify(res.sourceAnchor?.rect));
    assert.deepEqual([res.ambiguous, res.alsoOn], [true, [2]]);
    assert.deepEqual(
      res.warnings?.map((w) => [w.code, 'alsoOn' in w ? w.alsoOn : undefined]),
      [['EXCERPT_AMBIGUOUS', [2]]],
    );
    // Not on the selection's page at all: anchored to the box (never 422), and the pages it stands on are named.
    const off = await create({ excerpt: { bookmd5: book, page: 1, text: 'The REAL type.', near } });
    assert.deepEqual(off.sourceAnchor?.rect, near);
    assert.deepEqual([off.ambiguous, off.alsoOn], [true, [2, 3]]);
    assert.deepEqual(
      off.warnings?.map((w) => w.code),
      ['EXCERPT_SELECTION_BOX'],
    );
    assert.match(off.warnings[0].message, /stands on pages 2 and 3/);
    // A quote that stands once: nothing more to say.
    const once = await create({
      excerpt: { bookmd5: book, page: 3, text: 'Its precision is that of a double on every platform', near },
    });
    assert.deepEqual([once.ambiguous, once.alsoOn], [undefined, undefined]);
  });
});
