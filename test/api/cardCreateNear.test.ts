import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { popplerWords, type WordBox } from '../anchoring/geometry';

type Box = { x: number; y: number; width: number; height: number };

/** The quote: it stands twice on the page, once on one line and once wrapped over two. */
const QUOTE = 'The glyphs decide where a highlight begins and ends.';
const SIZE = 11;
/** Baselines (PDF points from the bottom) and the lines drawn there; `quote` marks the occurrences' lines. */
const LINES: Array<[number, string]> = [
  [740, 'A page where one sentence stands twice, in two places.'],
  [720, QUOTE],
  [700, 'Between the two, other words fill a few lines of the page,'],
  [686, 'as a book would have them between two mentions of a rule.'],
  [600, 'Filler words go before the quote. The glyphs decide where a'],
  [586, 'highlight begins and ends. After it, the page goes on a while.'],
];
const X = 72;

/** One page, Helvetica 11 pt (pdf-lib), the quote on the line at 720 and wrapped over the lines at 600 and 586. */
async function twicePdf(): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  for (const [y, text] of LINES) page.drawText(text, { x: X, y, size: SIZE, font });
  const file = join(tempDir('sb-near-'), 'twice.pdf');
  writeFileSync(file, await doc.save());
  return file;
}

/**
 * POST /study-sets/{id}/notes with excerpt.near, as the reader's Make card sends it: the selected text and the
 * browser's selection box, a hint only. The card's rectangles are the glyphs' (within 1 pt of poppler's word
 * boxes), one per line, at the occurrence the box points at.
 */
describe('POST /study-sets/{id}/notes with excerpt.near (Make card: the selection box picks the place)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  let book: string;
  let words: WordBox[];
  before(async () => {
    t = await startBridge();
    setId = (await t.client.createStudySet('Selections near a box')).topicid;
    const file = await twicePdf();
    words = popplerWords(file)[0];
    book = (await t.client.uploadDocument(readFileSync(file), { filename: 'twice.pdf', topicid: setId })).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
  });
  after(() => t.stop());

  const raw = (body: Record<string, unknown>) =>
    t.client.raw('POST', `/study-sets/${setId}/notes`, { body: { ...body, confirm: true } });

  /** poppler's words of the line drawn at baseline `y` (top-left origin: 792 - y is the baseline). */
  const lineWords = (y: number) =>
    words.filter((w) => Math.abs(w.yMax - (792 - y)) < SIZE / 2).sort((a, b) => a.xMin - b.xMin);
  /** The expected glyph box of the quote's part on the line at `y`: from word `first` to word `last` (poppler's). */
  const expected = (y: number, first: string, last: string) => {
    const ws = lineWords(y);
    const a = ws.find((w) => w.text === first);
    const b = [...ws].reverse().find((w) => w.text === last);
    assert.ok(a && b, `poppler has ${first} … ${last} on the line at ${y}: ${JSON.stringify(ws.map((w) => w.text))}`);
    return { left: a.xMin, right: b.xMax, top: Math.min(a.yMin, b.yMin), bottom: Math.max(a.yMax, b.yMax) };
  };
  /** Within 1 pt at both ends, and on that line: over poppler's box, its middle inside it (not the next line's). */
  const assertOn = (r: Box, e: ReturnType<typeof expected>, what: string) => {
    const [dl, dr] = [r.x - e.left, r.x + r.width - e.right];
    assert.ok(Math.abs(dl) <= 1 && Math.abs(dr) <= 1, `${what}: ${JSON.stringify(r)} against ${JSON.stringify(e)}`);
    assert.ok(r.y <= e.top + 1 && r.y + r.height >= e.bottom - 1, `${what} covers the line: ${JSON.stringify(r)}`);
    const middle = r.y + r.height / 2;
    assert.ok(middle > e.top && middle < e.bottom, `${what} stays on its line: ${JSON.stringify(r)}`);
    return Math.max(Math.abs(dl), Math.abs(dr));
  };
  /** The browser's box of a selection: a few points off the glyphs, as the text layer draws it. */
  const browserBox = (boxes: Array<ReturnType<typeof expected>>): Box => {
    const left = Math.min(...boxes.map((b) => b.left)) - 0.8;
    const top = Math.min(...boxes.map((b) => b.top)) - 2;
    const right = Math.max(...boxes.map((b) => b.right)) + 2.6;
    const bottom = Math.max(...boxes.map((b) => b.bottom)) + 1.5;
    return { x: left, y: top, width: right - left, height: bottom - top };
  };

  it('the box on the wrapped occurrence anchors that one: two rectangles, one per line, each within 1 pt of the glyphs', async () => {
    const lines = [expected(600, 'The', 'a'), expected(586, 'highlight', 'ends.')];
    const res = await raw({ excerpt: { bookmd5: book, page: 1, text: QUOTE, near: browserBox(lines) } });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.equal(body.warnings, undefined);
    assert.equal(body.ambiguous, undefined, 'the page is the selection’s: nothing to decide');
    const rects: Box[] = body.sourceAnchor.rects;
    assert.equal(rects.length, 2, JSON.stringify(rects));
    const worst = Math.max(assertOn(rects[0], lines[0], 'line 1'), assertOn(rects[1], lines[1], 'line 2'));
    console.log(`      wrapped occurrence: ends within ${worst.toFixed(2)} pt of poppler's word boxes`);
    // Stored so: the batch-get answers the same rectangles.
    const card = (await t.client.cards.batchGet([body.noteid])).notes[0];
    assert.deepEqual(card.sourceAnchor.rects, rects);
  });

  it('the box on the one-line occurrence anchors that one; without a box the first is taken', async () => {
    const line = expected(720, 'The', 'ends.');
    const res = await raw({ excerpt: { bookmd5: book, page: 1, text: QUOTE, near: browserBox([line]) } });
    assert.equal(res.status, 200, res.text());
    const rects: Box[] = res.json<any>().sourceAnchor.rects;
    assert.equal(rects.length, 1, JSON.stringify(rects));
    assertOn(rects[0], line, 'the line');
    // The same quote with the box on the wrapped one, cut to its second line only: still that occurrence.
    const second = expected(586, 'highlight', 'ends.');
    const wrapped = await raw({ excerpt: { bookmd5: book, page: 1, text: QUOTE, near: browserBox([second]) } });
    assert.equal(wrapped.json<any>().sourceAnchor.rects.length, 2);
    assertOn(wrapped.json<any>().sourceAnchor.rects[1], second, 'line 2');
    // No box (an agent's card): the text match takes the first place on the page.
    const plain = await raw({ excerpt: { bookmd5: book, page: 1, text: QUOTE } });
    assert.deepEqual(plain.json<any>().sourceAnchor.rects, rects);
  });

  it('text the page does not hold is anchored to the box, with warning EXCERPT_SELECTION_BOX', async () => {
    const near = { x: 80, y: 100, width: 150, height: 14 };
    const res = await raw({ excerpt: { bookmd5: book, page: 1, text: 'words that stand nowhere on this page', near } });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.deepEqual(body.sourceAnchor.rect, near);
    assert.deepEqual(
      body.warnings.map((w: any) => [w.code, w.reason]),
      [['EXCERPT_SELECTION_BOX', 'no_match']],
    );
    assert.match(body.warnings[0].message, /selection's box/);
  });

  const refusals: Array<[string, () => Record<string, unknown>, number, string]> = [
    [
      'both rect and near',
      () => ({
        excerpt: {
          bookmd5: book,
          page: 1,
          text: QUOTE,
          rect: { x: 1, y: 1, width: 10, height: 10 },
          near: { x: 1, y: 1, width: 10, height: 10 },
        },
      }),
      422,
      'INVALID_INPUT',
    ],
    [
      'a box beyond the page',
      () => ({ excerpt: { bookmd5: book, page: 1, text: QUOTE, near: { x: 500, y: 700, width: 400, height: 400 } } }),
      422,
      'RECT_OUTSIDE_PAGE',
    ],
    [
      'a negative box',
      () => ({ excerpt: { bookmd5: book, page: 1, text: QUOTE, near: { x: -1, y: 1, width: 10, height: 10 } } }),
      422,
      'INVALID_INPUT',
    ],
  ];
  for (const [what, body, status, code] of refusals) {
    it(`refuses ${what}: ${status} ${code}, nothing written`, async () => {
      const before = storeDigest(t.bridge.services.store);
      const res = await raw(body());
      assert.equal(res.status, status, res.text());
      assert.equal(res.json<any>().error.code, code);
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  }
});
