import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PageOcr } from '../../src/server/ground/pdf/pageOcr';
import {
  cardImagesFixture,
  darkShare,
  decode,
  EXCERPT_PAGE,
  makePng,
  UNKNOWN,
  VERBATIM,
  type CardImagesFixture,
} from './cardImagesFixture';

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

describe('GET /notes/{id}/render (the whole card as PNG or PDF)', function () {
  this.timeout(180_000); // OCR of a render on a busy machine
  let f: CardImagesFixture;
  let card: any;
  const ocr = new PageOcr();
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-render-'));
  const TITLE = 'Centering figures on letter paper';

  before(async () => {
    f = await cardImagesFixture();
    card = await f.create({ title: TITLE, excerpt: { bookmd5: f.book, page: EXCERPT_PAGE, text: VERBATIM } });
    await f.t.client.request('POST', `/notes/${card.noteid}/comments`, {
      body: { text: 'The paper type can be changed to a4 in the configuration.', confirm: true },
    });
    await f.t.client.request('POST', '/notes/hashtags', {
      body: { noteIds: [card.noteid], operation: 'add', hashtags: ['asymptote/layout'], confirm: true },
    });
    await f.addPart(card.noteid, {
      kind: 'image',
      mimeType: 'image/png',
      blob: await makePng(300, 120, (ctx) => ((ctx.fillStyle = '#c02020'), ctx.fillRect(0, 0, 300, 120))),
    });
  });
  after(async () => {
    await ocr.close();
    rmSync(dir, { recursive: true, force: true });
    await f.t.stop();
  });

  const render = (noteid: string, query: Record<string, string | number> = {}) =>
    f.t.client.raw('GET', `/notes/${noteid}/render`, { query });

  it('PNG at the requested width (default 800); OCR of the render reads the title, the excerpt text, the comment and the hashtag back', async () => {
    const res = await render(card.noteid, { width: 900 });
    assert.equal(res.status, 200, res.text());
    assert.equal(res.headers.get('content-type'), 'image/png');
    const img = await decode(res.bytes);
    assert.equal(img.width, 900);
    assert.equal(String(img.height), res.headers.get('x-render-height'));
    const text = words((await ocr.recognize(res.bytes, 1)).text).join(' ');
    for (const expected of [
      TITLE,
      'assuming that the paper type is letter',
      'changed to a4 in the configuration',
      'asymptote layout',
    ]) {
      assert.ok(text.includes(words(expected).join(' ')), `OCR reads "${expected}" in: ${text}`);
    }
    // The red illustration is drawn: a run of red pixels exists.
    let red = 0;
    for (let i = 0; i < img.rgba.length; i += 4)
      if (img.rgba[i] > 170 && img.rgba[i + 1] < 60 && img.rgba[i + 2] < 60) red++;
    assert.ok(red >= 300 * 120 * 0.9, `the picture is drawn (${red} red pixels)`);

    const byDefault = await decode((await render(card.noteid)).bytes);
    assert.equal(byDefault.width, 800);
    const narrow = await decode((await render(card.noteid, { width: 320, format: 'png' })).bytes);
    assert.equal(narrow.width, 320);
    assert.ok(narrow.height > byDefault.height, 'a narrower card wraps into more lines');
    assert.ok(darkShare(narrow.rgba) > 0.01, 'not blank');
  });

  it('PDF drawn with pdf-lib: passes qpdf --check; its text layer holds the title, body and comment', async () => {
    const res = await render(card.noteid, { format: 'pdf', width: 600 });
    assert.equal(res.status, 200, res.text());
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.bytes.subarray(0, 5).toString(), '%PDF-');
    const file = path.join(dir, 'card.pdf');
    writeFileSync(file, res.bytes);
    const check = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    for (const expected of [TITLE, 'The paper type can be changed to a4', '#asymptote/layout'])
      assert.ok(text.includes(expected), `pdftotext finds "${expected}" in: ${text}`);
  });

  it('a long card paginates in the PDF; characters Helvetica lacks are drawn as pictures of their line; qpdf still passes', async () => {
    const long = await f.create({
      title: 'Ωmega notes ünïcödé',
      text: Array.from({ length: 300 }, (_, i) => `Line ${i} of a long card.`).join('\n'),
    });
    const res = await render(long.noteid, { format: 'pdf', width: 400 });
    assert.equal(res.status, 200, res.text());
    const file = path.join(dir, 'long.pdf');
    writeFileSync(file, res.bytes);
    assert.equal(spawnSync('qpdf', ['--check', file]).status, 0);
    const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
    const pages = Number(/Pages:\s+(\d+)/.exec(info)![1]);
    assert.ok(pages >= 3, `${pages} pages`);
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    assert.match(text, /Line 0 of a long card\./);
    assert.match(text, /Line 299 of a long card\./);
    assert.doesNotMatch(text, /Ωmega/, 'the title with Ω is a picture, not Helvetica text');
  });

  it('above 36 million pixels → 422 RENDER_TOO_LARGE before drawing; nothing is written', async () => {
    const huge = await f.create({ title: 'Huge', text: 'a\n'.repeat(50_000) });
    const before = f.digest();
    for (const format of ['png', 'pdf']) {
      const res = await render(huge.noteid, { width: 1200, format });
      assert.equal(res.status, 422, res.text());
      const err = res.json<any>().error;
      assert.equal(err.code, 'RENDER_TOO_LARGE');
      assert.equal(err.details.maxPixels, 36_000_000);
      assert.ok(err.details.width * err.details.minimumHeight > 36_000_000);
    }
    assert.equal(f.digest(), before);
  });

  it('refusals: unknown card, width outside 320–1200, unknown format; nothing changes', async () => {
    const before = f.digest();
    const cases: Array<[string, string, Record<string, string>, number, string]> = [
      ['unknown card', UNKNOWN, {}, 404, 'NOTE_NOT_FOUND'],
      ['width 319', card.noteid, { width: '319' }, 422, 'INVALID_INPUT'],
      ['width 1201', card.noteid, { width: '1201' }, 422, 'INVALID_INPUT'],
      ['width text', card.noteid, { width: 'wide' }, 422, 'INVALID_INPUT'],
      ['format gif', card.noteid, { format: 'gif' }, 422, 'INVALID_INPUT'],
    ];
    for (const [what, noteid, query, status, code] of cases) {
      const res = await render(noteid, query);
      assert.equal(res.status, status, `${what}: ${res.text()}`);
      assert.equal(res.json<any>().error.code, code, what);
    }
    assert.equal(f.digest(), before);
  });
});
