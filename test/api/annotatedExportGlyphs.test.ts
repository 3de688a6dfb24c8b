// The annotated PDF's highlights cover whole words: excerpt cards on a pdfTeX page (justified lines, kerns, words
// ending in punctuation, quotes over line breaks) exported by GET /study-sets/{id}/annotated-pdf, the page drawn
// with pdftoppm (left in test-output/annotated-export/), and every word box poppler finds on the page that a
// highlight touches lies ≥ 95 % inside it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { pdfJsAnnotations, type Box } from '../helpers/annotatedPdf';
import { popplerWords, type WordBox } from '../anchoring/geometry';
import { pdftotextPage } from '../anchoring/labelledSet';
import { corpusFile } from '../unit/pdfCorpus';

const BOOK = '4ti2_manual.pdf';
const PAGE = 7;
const OUT = resolve(__dirname, '../../test-output/annotated-export');

/** Windows of the page's words (pdftotext, reading order), each ending at a word with punctuation when one is near. */
function quotes(): string[] {
  const words = pdftotextPage(corpusFile(BOOK), PAGE, [])
    .split(/\s+/)
    .filter((w) => w && !/\p{Cc}/u.test(w));
  const out: string[] = [];
  for (let at = 4; at + 16 < words.length && out.length < 8; at += 19) {
    let end = at + 8;
    while (end < at + 14 && !/[.,;:)]$/.test(words[end - 1])) end++;
    out.push(words.slice(at, end).join(' '));
  }
  return out;
}

const overlap = (a0: number, a1: number, b0: number, b1: number) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/** Share of the word's box inside the quad. */
const inside = (w: WordBox, q: Box) =>
  (overlap(w.xMin, w.xMax, q.x, q.x + q.w) * overlap(w.yMin, w.yMax, q.y, q.y + q.h)) /
  ((w.xMax - w.xMin) * (w.yMax - w.yMin));

/** The highlight touches the word: on its line (half the word's height) and over it by more than a hair. */
const touches = (w: WordBox, q: Box) =>
  overlap(w.yMin, w.yMax, q.y, q.y + q.h) >= 0.5 * (w.yMax - w.yMin) && overlap(w.xMin, w.xMax, q.x, q.x + q.w) > 0.5;

describe('annotated export: highlights cover whole words (poppler word boxes, pdftoppm picture)', function () {
  this.timeout(300_000);
  let t: TestBridge;

  before(async () => {
    t = await startBridge();
  });
  after(() => t.stop());

  it('every word box a highlight touches lies ≥ 95 % inside it; the page is drawn into test-output/', async () => {
    const set = await t.client.createStudySet('Highlights on 4ti2');
    const { bookmd5 } = await t.client.uploadDocument(readFileSync(corpusFile(BOOK)), {
      filename: BOOK,
      topicid: set.topicid,
    });
    const texts = quotes();
    assert.ok(texts.length >= 6, `${texts.length} quotes on page ${PAGE}`);
    for (const [k, text] of texts.entries())
      await t.client.cards.create(set.topicid, { title: `Quote ${k + 1}`, excerpt: { bookmd5, page: PAGE, text } });
    const res = await t.client.raw('GET', `/study-sets/${set.topicid}/annotated-pdf`, { query: { bookmd5 } });
    assert.equal(res.status, 200, res.text());
    mkdirSync(OUT, { recursive: true });
    const pdf = join(OUT, '4ti2-annotated.pdf');
    writeFileSync(pdf, res.bytes);
    execFileSync('pdftoppm', ['-f', String(PAGE), '-l', String(PAGE), '-r', '110', '-png', pdf, join(OUT, 'page')]);

    const quads = (await pdfJsAnnotations(res.bytes, PAGE))
      .filter((a) => a.kind === 'Highlight')
      .flatMap((a) => a.quads);
    assert.ok(quads.length >= texts.length, `${quads.length} highlight quads for ${texts.length} cards`);
    const words = popplerWords(pdf)[PAGE - 1];
    const cut: string[] = [];
    let touched = 0;
    for (const w of words) {
      const hit = quads.filter((q) => touches(w, q));
      if (!hit.length) continue;
      touched++;
      const share = Math.max(...hit.map((q) => inside(w, q)));
      if (share < 0.95) cut.push(`"${w.text}" ${(100 * share).toFixed(1)} % inside`);
    }
    const quoted = texts.reduce((n, q) => n + q.split(' ').length, 0);
    assert.ok(touched >= quoted * 0.9, `${touched} words under highlights, ${quoted} quoted`);
    assert.deepEqual(cut, [], 'no highlighted word is cut');
  });
});
