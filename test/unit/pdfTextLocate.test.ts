import assert from 'node:assert/strict';
import { extracted } from './pdfExtracted';
import { locateText } from '../../src/server/ground/text/locate';

describe('pdf pipeline: locate text on a page', function () {
  this.timeout(120_000);

  it('finds a verbatim sentence with score 1 and a rectangle around its lines', async () => {
    const page = (await extracted('4ti2_manual.pdf')).pages[5];
    const line = page.text.split('\n').find((l) => l.length > 40)!;
    const r = locateText(page.items, line);
    assert.equal(r.found, true);
    assert.equal(r.status, 'found');
    assert.equal(r.score, 1);
    assert.equal(r.matchedText!.replace(/\s+/g, ' '), line.replace(/\s+/g, ' ').trim());
    assert.ok(r.rect && r.rect.w > 50 && r.rect.h > 4 && r.rect.x >= 0 && r.rect.y + r.rect.h <= page.height);
  });

  it('tolerates typos, case and line breaks across items', async () => {
    const page = (await extracted('4ti2_manual.pdf')).pages[5];
    const lines = page.text.split('\n').filter((l) => l.length > 30);
    const text = `${lines[1]}\n${lines[2]}`.toUpperCase().replace(/e/gi, (m, i: number) => (i % 17 === 0 ? 'x' : m));
    const r = locateText(page.items, text);
    assert.equal(r.found, true);
    assert.ok(r.score >= 0.9 && r.score < 1.0001);
  });

  it('answers no_match for text that is not there, page_unreadable for an empty page', async () => {
    const page = (await extracted('4ti2_manual.pdf')).pages[5];
    const miss = locateText(page.items, 'The quick brown fox jumps over the lazy dog again and again');
    assert.equal(miss.found, false);
    assert.equal(miss.status, 'no_match');
    assert.equal(locateText([], 'anything').status, 'page_unreadable');
  });

  it('finds text on OCR pages too', async () => {
    const page = (await extracted('scanned-4ti2-p5-8.pdf')).pages[0];
    const line = page.text.split('\n').find((l) => l.length > 40)!;
    assert.equal(locateText(page.items, line).found, true);
  });

  it('near a box: the place of a quote that stands twice on the page is the one the box points at, verbatim or not', () => {
    const line = 'Alpha beta gamma delta epsilon zeta eta theta iota kappa';
    const item = (y: number) => ({ str: line, x: 72, y, w: 300, h: 10, fontHeight: 10, eol: true });
    const filler = (y: number) => ({ ...item(y), str: 'other words of the page between the two places' });
    const items = [item(100), filler(120), filler(140), item(400), filler(420)];
    const lower = { x: 70, y: 398, w: 305, h: 14 };
    for (const quote of [line, line.replace('gamma', 'gamna').replace('theta', 'thetta')]) {
      const first = locateText(items, quote);
      assert.equal(first.found, true, quote);
      assert.equal(first.rect!.y < 150, true, `no box: the first place (${JSON.stringify(first.rect)})`);
      const near = locateText(items, quote, undefined, lower);
      assert.equal(near.found, true);
      assert.ok(near.rect!.y > 390 && near.rect!.y < 410, `the box's place: ${JSON.stringify(near.rect)}`);
    }
  });
});
