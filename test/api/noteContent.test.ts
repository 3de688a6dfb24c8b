import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { corpusFile } from '../unit/pdfCorpus';
import { EXCERPT_MARGIN_PT } from '../../src/server/domain/cards/cardImages';
import {
  cardImagesFixture,
  darkShare,
  decode,
  EXCERPT_PAGE,
  makePng,
  pixel,
  UNKNOWN,
  VERBATIM,
  type CardImagesFixture,
} from './cardImagesFixture';

/** pdftoppm's rendering of the same region at the same scale, as RGBA. */
async function popplerCrop(page: number, rect: { x: number; y: number; width: number; height: number }, scale: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-crop-'));
  try {
    const px = (v: number) => String(Math.round(v * scale));
    execFileSync('pdftoppm', [
      '-f',
      String(page),
      '-l',
      String(page),
      '-r',
      String(72 * scale),
      '-x',
      px(rect.x),
      '-y',
      px(rect.y),
      '-W',
      px(rect.width),
      '-H',
      px(rect.height),
      '-png',
      '-singlefile',
      corpusFile('asymptote.pdf'),
      path.join(dir, 'c'),
    ]);
    return decode(readFileSync(path.join(dir, 'c.png')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Mean absolute grey difference over the common area. */
function greyDiff(
  a: { rgba: Uint8ClampedArray; width: number; height: number },
  b: { rgba: Uint8ClampedArray; width: number; height: number },
) {
  const w = Math.min(a.width, b.width);
  const h = Math.min(a.height, b.height);
  let sum = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const pa = pixel(a, x, y);
      const pb = pixel(b, x, y);
      sum += Math.abs(pa[0] + pa[1] + pa[2] - (pb[0] + pb[1] + pb[2])) / 3;
    }
  }
  return sum / (w * h);
}

describe('GET /notes/{id}/content/{contentId} (card pictures and media)', function () {
  this.timeout(60_000);
  let f: CardImagesFixture;
  let excerptCard: any;
  before(async () => {
    f = await cardImagesFixture();
    excerptCard = await f.create({ excerpt: { bookmd5: f.book, page: EXCERPT_PAGE, text: VERBATIM } });
    assert.ok(excerptCard.sourceAnchor.rect, 'the verbatim sentence is anchored');
  });
  after(() => f.t.stop());

  const content = (noteid: string, contentId: string, query?: Record<string, string | number>) =>
    f.t.client.raw('GET', `/notes/${noteid}/content/${contentId}`, { query: query as never });

  it('batch-get lists the excerpt region as an excerpt_image part; its PNG is the page region under the anchor, longer edge = maxEdge', async () => {
    const card = await f.batchGet(excerptCard.noteid);
    const part = card.parts.find((p: any) => p.kind === 'excerpt_image');
    assert.deepEqual(
      { contentId: part.contentId, mimeType: part.mimeType, excerpt: part.excerpt, noteid: part.noteid },
      { contentId: `excerpt-${excerptCard.noteid}`, mimeType: 'image/png', excerpt: true, noteid: excerptCard.noteid },
    );
    assert.deepEqual(
      card.parts.map((p: any) => p.kind),
      ['title', 'excerpt', 'excerpt_image'],
      'title, body, then the region',
    );

    // The picture is the anchor rectangle with a 4-point margin (locate's rectangle hugs the glyphs).
    const a = excerptCard.sourceAnchor.rect;
    const rect = {
      x: a.x - EXCERPT_MARGIN_PT,
      y: a.y - EXCERPT_MARGIN_PT,
      width: a.width + 2 * EXCERPT_MARGIN_PT,
      height: a.height + 2 * EXCERPT_MARGIN_PT,
    };
    const res = await content(excerptCard.noteid, part.contentId, { maxEdge: 600 });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    const img = await decode(res.bytes);
    const scale = 600 / Math.max(rect.width, rect.height);
    assert.equal(Math.max(img.width, img.height), 600);
    assert.ok(Math.abs(img.height - rect.height * scale) <= 1, `height ${img.height} ≈ ${rect.height * scale}`);
    const ink = darkShare(img.rgba);
    assert.ok(ink > 0.02 && ink < 0.6, `the region shows text, not a blank or black box (dark share ${ink})`);

    // The same region by poppler matches closely; the same rectangle one page on does not.
    const same = greyDiff(img, await popplerCrop(EXCERPT_PAGE, rect, scale));
    const other = greyDiff(img, await popplerCrop(EXCERPT_PAGE + 1, rect, scale));
    assert.ok(
      same < other / 2,
      `poppler's crop of page ${EXCERPT_PAGE} differs by ${same.toFixed(1)}, page ${EXCERPT_PAGE + 1} by ${other.toFixed(1)}`,
    );

    const byDefault = await decode((await content(excerptCard.noteid, part.contentId)).bytes);
    assert.equal(Math.max(byDefault.width, byDefault.height), 2048, 'maxEdge defaults to 2048');
    const small = await decode((await content(excerptCard.noteid, part.contentId, { maxEdge: 64 })).bytes);
    assert.equal(Math.max(small.width, small.height), 64);
  });

  it('illustrations and handwriting: composite PNG scaled down to maxEdge, never up; ink is drawn on white', async () => {
    const card = await f.create({ title: 'Figure' });
    const picture = await makePng(400, 200, (ctx) => {
      ctx.fillStyle = '#1040c0';
      ctx.fillRect(0, 0, 400, 200);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, 200, 200);
    });
    const ink = await makePng(300, 300, (ctx) => {
      ctx.strokeStyle = '#000000';
      ctx.lineWidth = 20;
      ctx.beginPath();
      ctx.moveTo(0, 150);
      ctx.lineTo(300, 150);
      ctx.stroke();
    });
    const imageId = await f.addPart(card.noteid, { kind: 'image', mimeType: 'image/png', blob: picture });
    const inkId = await f.addPart(card.noteid, { kind: 'ink', mimeType: 'image/png', blob: ink });
    assert.deepEqual(
      (await f.batchGet(card.noteid)).parts.filter((p: any) => p.contentId).map((p: any) => [p.contentId, p.kind]),
      [
        [imageId, 'image'],
        [inkId, 'ink'],
      ],
    );

    const down = await decode((await content(card.noteid, imageId, { maxEdge: 100 })).bytes);
    assert.deepEqual([down.width, down.height], [100, 50]);
    assert.ok(pixel(down, 75, 25)[2] > 150 && pixel(down, 75, 25)[0] < 60, 'right half blue');
    assert.ok(pixel(down, 25, 25)[0] > 230, 'left half white');
    const notUp = await decode((await content(card.noteid, imageId, { maxEdge: 4096 })).bytes);
    assert.deepEqual([notUp.width, notUp.height], [400, 200], 'a stored image is never enlarged');

    const hand = await decode((await content(card.noteid, inkId, { maxEdge: 150 })).bytes);
    assert.deepEqual([hand.width, hand.height], [150, 150]);
    assert.deepEqual(pixel(hand, 75, 20), [255, 255, 255, 255], 'transparent ink background composited on white');
    assert.ok(pixel(hand, 75, 75)[0] < 60, 'the stroke is there');
  });

  it('audio and video parts come back as their raw bytes with their MIME type', async () => {
    const card = await f.create({ title: 'Pronunciation' });
    const audio = Buffer.from('ID3\u0003\u0000fake mp3 frames ' + 'x'.repeat(500), 'latin1');
    const video = Buffer.alloc(2048, 7);
    const a = await f.addPart(card.noteid, { kind: 'audio', mimeType: 'audio/mpeg', blob: audio });
    const v = await f.addPart(card.noteid, { kind: 'video', mimeType: 'video/mp4', blob: video });
    const ra = await content(card.noteid, a);
    assert.equal(ra.status, 200);
    assert.equal(ra.headers.get('content-type'), 'audio/mpeg');
    assert.deepEqual(ra.bytes, audio);
    const rv = await content(card.noteid, v, { maxEdge: 64 });
    assert.equal(rv.headers.get('content-type'), 'video/mp4');
    assert.deepEqual(rv.bytes, video);
  });

  it('a reference copy serves the pictures of its original', async () => {
    const copy = (
      await f.t.client.call('POST /notes/copy', {
        body: { noteIds: [excerptCard.noteid], targetParentNoteId: f.rootId, mode: 'reference', confirm: true },
      })
    ).copies[0].newNoteId;
    const part = (await f.batchGet(copy)).parts.find((p: any) => p.kind === 'excerpt_image');
    assert.equal(part.contentId, `excerpt-${excerptCard.noteid}`);
    const img = await decode((await content(copy, part.contentId, { maxEdge: 200 })).bytes);
    assert.equal(Math.max(img.width, img.height), 200);
  });

  it('refusals: unknown card or content, bad maxEdge or layers, a part of another card, a missing PDF file; nothing changes', async () => {
    const plain = await f.create({ title: 'Plain', text: 'no pictures here' });
    const other = await f.create({ title: 'Other' });
    const otherPart = await f.addPart(other.noteid, {
      kind: 'image',
      mimeType: 'image/png',
      blob: await makePng(10, 10, () => undefined),
    });
    const excerptId = `excerpt-${excerptCard.noteid}`;
    const before = f.digest();
    const cases: Array<[string, string, string, Record<string, string>, number, string]> = [
      ['unknown card', UNKNOWN, excerptId, {}, 404, 'NOTE_NOT_FOUND'],
      ['unknown content', excerptCard.noteid, 'NOPE', {}, 404, 'CONTENT_NOT_FOUND'],
      ['excerpt id of a card without an anchor', plain.noteid, `excerpt-${plain.noteid}`, {}, 404, 'CONTENT_NOT_FOUND'],
      ["another card's part", plain.noteid, otherPart, {}, 404, 'CONTENT_NOT_FOUND'],
      ["another card's excerpt", plain.noteid, excerptId, {}, 404, 'CONTENT_NOT_FOUND'],
      ['maxEdge 63', excerptCard.noteid, excerptId, { maxEdge: '63' }, 422, 'INVALID_INPUT'],
      ['maxEdge 4097', excerptCard.noteid, excerptId, { maxEdge: '4097' }, 422, 'INVALID_INPUT'],
      ['maxEdge not a number', excerptCard.noteid, excerptId, { maxEdge: 'big' }, 422, 'INVALID_INPUT'],
      ['maxEdge fractional', excerptCard.noteid, excerptId, { maxEdge: '100.5' }, 422, 'INVALID_INPUT'],
      ['layers unknown', excerptCard.noteid, excerptId, { layers: 'masks' }, 422, 'INVALID_INPUT'],
      ['card id not a uuid', 'not-a-card', excerptId, {}, 422, 'INVALID_INPUT'],
    ];
    for (const [what, noteid, cid, query, status, code] of cases) {
      const res = await content(noteid, cid, query);
      assert.equal(res.status, status, `${what}: ${res.text()}`);
      assert.equal(res.json<any>().error.code, code, what);
    }

    const row = f.t.bridge.services.documents.find(f.book)!;
    const file = f.t.bridge.services.documents.filePath(row);
    renameSync(file, `${file}.away`);
    try {
      const res = await content(excerptCard.noteid, excerptId, { maxEdge: 100 });
      assert.equal(res.status, 422, res.text());
      assert.equal(res.json<any>().error.code, 'DOCUMENT_FILE_MISSING');
      assert.equal(res.json<any>().error.details.bookmd5, f.book);
    } finally {
      renameSync(`${file}.away`, file);
    }
    assert.equal(f.digest(), before, 'no refusal changed the store');
    assert.equal(
      (await content(excerptCard.noteid, excerptId, { maxEdge: 100 })).status,
      200,
      'the file back, the picture is back',
    );
  });
});
