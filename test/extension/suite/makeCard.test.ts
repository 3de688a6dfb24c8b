// Make Card in the real VS Code where extractors disagree (issue 17): a
// selection over a line break in one column of a two-column page, and one over
// a line break of a Chinese page. The card keeps the selected text (CJK lines
// joined without a space, Kangxi-radical glyphs read as the ideographs) and a
// rectangle covering the selection that stays in its column; locate finds the
// same text in the same place, and card search finds the CJK card.
import { suiteAgent } from './suiteAgent';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { BridgeClient } from '../../../src/client/bridgeClient';
import type { StudyBridgeApi } from '../../../src/extension';
import type { PdfReaderSession } from '../../../src/editors/pdfReaderSession';
import { writeLayoutPdfs } from '../../anchoring/layoutPdfs';
import { cjkPdf } from '../../helpers/cjkPdf';
import { popplerWords, type WordBox } from '../../anchoring/geometry';
import { askRunner } from './signals';
import { eventually } from './eventually';

const EXTENSION_ID = 'study-bridge.study-bridge';
const metrics = (globalThis as { __studyBridgeMetrics?: Record<string, unknown> }).__studyBridgeMetrics ?? {};
/** Per book: the card's worst end against the glyphs, and the browser's selection box's (what Make card stored before). */
const figures: Record<string, { afterPt: number; selectionBoxPt: number }> = {};
metrics.makeCardGlyphs = figures;
type Box = { x: number; y: number; width: number; height: number };
interface Selected {
  selected: string;
  spanText: string;
  line: Box;
  selection: Box | null;
}
interface Located {
  found: boolean;
  rect?: Box;
  rects?: Box[];
  pageSize: { width: number; height: number };
}
/** two-columns.pdf (test/anchoring/layoutPdfs.ts): 612 pt wide, columns at x 50 and 322, 250 pt wide; the gap's middle. */
const COLUMN_GAP_MIDDLE = 311;
/**
 * Points between the card's rectangles and the selection's glyph boxes (poppler's word boxes, an extractor of its
 * own), at both ends of each line. The browser's selection box is no reference: the text layer's fonts are the
 * webview's, stretched to pdf.js's widths (one CI run on VS Code 1.139 saw it end 2.6 pt past the glyphs); Make card
 * sends it only as a hint where the text is, and the bridge anchors the card to the glyphs.
 */
const TOL = 1;

const right = (b: Box) => b.x + b.width;
const bottom = (b: Box) => b.y + b.height;
const overlapArea = (a: Box, b: Box) =>
  Math.max(0, Math.min(right(a), right(b)) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(bottom(a), bottom(b)) - Math.max(a.y, b.y));
/** Text as poppler's words and the selection compare: NFKC (Kangxi radicals read as ideographs), no white space. */
const squeeze = (t: string) => t.normalize('NFKC').replace(/\s+/g, '');

/**
 * The glyph box of each selected line: the run of poppler's words whose text is the line's, the one nearest the
 * browser's selection box (a line's text may stand elsewhere on the page too).
 */
function selectedGlyphBoxes(words: WordBox[], selected: string, selection: Box): Box[] {
  return selected
    .split('\n')
    .map(squeeze)
    .filter(Boolean)
    .map((line) => {
      const runs: Box[] = [];
      for (let a = 0; a < words.length; a++) {
        let text = '';
        for (let b = a; b < words.length && text.length < line.length; b++) {
          text += squeeze(words[b].text);
          if (text !== line) continue;
          const run = words.slice(a, b + 1);
          const [x, y] = [Math.min(...run.map((w) => w.xMin)), Math.min(...run.map((w) => w.yMin))];
          runs.push({
            x,
            y,
            width: Math.max(...run.map((w) => w.xMax)) - x,
            height: Math.max(...run.map((w) => w.yMax)) - y,
          });
        }
      }
      const far = (r: Box) => -overlapArea(r, selection) || Math.hypot(r.x - selection.x, r.y - selection.y);
      const best = runs.sort((p, q) => far(p) - far(q))[0];
      assert.ok(best, `poppler's words hold the selected line ${JSON.stringify(line)}`);
      return best;
    });
}

/** Signed points at a line's two ends: the rectangle's left minus the glyphs' left, and right minus right. */
const endsOff = (r: Box, g: Box) => [r.x - g.x, right(r) - right(g)];

describe('Make Card on a two-column page and on a CJK page (real VS Code)', () => {
  let api: StudyBridgeApi;
  let agent: BridgeClient;
  let session: PdfReaderSession | undefined;

  before(async () => {
    api = await vscode.extensions.getExtension<StudyBridgeApi>(EXTENSION_ID)!.activate();
    await api.whenSettled();
    agent = await suiteAgent(api.dataDir);
  });

  afterEach(() => {
    session?.panel.dispose();
    session = undefined;
  });

  /** Uploads `file` into a new set, opens it in the reader at page 1, selects over a line break there and makes a card of it. */
  async function makeCardOn(file: string, setTitle: string) {
    const { topicid } = await agent.createStudySet(setTitle);
    const { bookmd5 } = await agent.uploadDocument(readFileSync(file), { filename: file.split('/').pop()!, topicid });
    session = await api.reader.openBook({ bookmd5, topicid, page: 1 });
    const s = session;
    await eventually(() => s.firstRenderMs, 'the first page drawn', 30_000).catch((e: Error) => {
      throw new Error(`${e.message}; reader errors: ${JSON.stringify(s.errors)}`);
    });
    const sel = await askRunner<Selected>(`make-card-select-${bookmd5}`, {
      action: 'reader',
      step: 'select',
      page: 1,
      toNextLine: true,
    });
    assert.ok(sel.selection, `a selection: ${JSON.stringify(sel)}`);
    assert.match(sel.selected, /\n/, `the selection crosses a line break: ${JSON.stringify(sel.selected)}`);
    const menu = await askRunner<{ items: string[] }>(`make-card-menu-${bookmd5}`, {
      action: 'reader',
      step: 'context-menu',
      item: 'Make Card',
    });
    assert.ok(menu.items.includes('Make Card'), `menu: ${menu.items}`);
    const made = await eventually(
      async () => (await agent.cards.tree(topicid)).nodes.find((n) => n.hasExcerpt),
      'the new card in the tree',
    );
    assert.equal(made.page, 1);
    const [note] = (await agent.cards.batchGet([made.noteid])).notes;
    assert.equal(note.texts[0].excerpt, true);
    const anchor = note.sourceAnchor;
    assert.deepEqual([anchor.bookmd5, anchor.page], [bookmd5, 1]);
    // The same text located by the bridge's matcher (the one text engine): found, and where the selection is.
    const loc = await agent.request<Located>('POST', `/documents/${bookmd5}/locate`, {
      body: { page: 1, text: note.texts[0].text },
    });
    const size = loc.pageSize;
    const selection = {
      x: sel.selection.x * size.width,
      y: sel.selection.y * size.height,
      width: sel.selection.width * size.width,
      height: sel.selection.height * size.height,
    };
    const rect = anchor.rect!;
    assert.ok(rect, 'the card is anchored');
    // The card's rectangles, one per selected line, each within 1 pt of the selection's glyphs at both ends.
    const glyphs = selectedGlyphBoxes(popplerWords(file)[0], sel.selected, selection);
    const rects = anchor.rects;
    assert.equal(rects.length, glyphs.length, `one rectangle per selected line: ${JSON.stringify({ rects, glyphs })}`);
    const after = rects.flatMap((r, k) => endsOff(r, glyphs[k]));
    rects.forEach((r, k) => {
      const [l, rt] = endsOff(r, glyphs[k]);
      assert.ok(
        Math.abs(l) <= TOL && Math.abs(rt) <= TOL,
        `line ${k + 1}: ${JSON.stringify(r)} ends ${l.toFixed(2)} / ${rt.toFixed(2)} pt from the glyphs ${JSON.stringify(glyphs[k])}`,
      );
      const middle = r.y + r.height / 2;
      assert.ok(middle > glyphs[k].y && middle < bottom(glyphs[k]), `line ${k + 1}: ${JSON.stringify(r)} on its line`);
    });
    // Where the person selected (the browser's box, a few points off the glyphs) — and what Make card stored before.
    assert.ok(
      overlapArea(rect, selection) >= 0.5 * Math.min(rect.width * rect.height, selection.width * selection.height),
    );
    const union = { x: glyphs[0].x, right: Math.max(...glyphs.map(right)) };
    const before = [selection.x - union.x, right(selection) - union.right];
    const worst = (xs: number[]) => Math.max(...xs.map(Math.abs));
    figures[file.split('/').pop()!] = { afterPt: +worst(after).toFixed(2), selectionBoxPt: +worst(before).toFixed(2) };
    console.log(`      Make card on ${file.split('/').pop()}: ${JSON.stringify(figures[file.split('/').pop()!])}`);
    assert.equal(loc.found, true, `locate finds the card's text: ${note.texts[0].text}`);
    const located = loc.rects ?? [loc.rect!];
    assert.equal(located.length, rects.length, `one rectangle per line: ${JSON.stringify(located)}`);
    located.forEach((r, k) =>
      assert.ok(
        worst(endsOff(r, rects[k])) <= TOL,
        `located ${JSON.stringify(r)} is the card's ${JSON.stringify(rects[k])}`,
      ),
    );
    await eventually(() => (s.highlightCount === 1 ? true : undefined), 'the new card highlighted');
    return { sel, note, rects, selection, located, topicid, bookmd5, noteid: made.noteid };
  }

  it('two columns: a selection over two lines of one column becomes a card whose rectangle covers it and stays in that column', async function () {
    this.timeout(120_000);
    const [twoColumns] = await writeLayoutPdfs(mkdtempSync(join(tmpdir(), 'sb-make-card-')));
    const { sel, note, rects, selection, located } = await makeCardOn(twoColumns, 'Make Card: two columns');
    assert.equal(note.texts[0].text, sel.selected.replace(/\s+/g, ' ').trim());
    const left = right(selection) < COLUMN_GAP_MIDDLE;
    assert.ok(left || selection.x > COLUMN_GAP_MIDDLE, `the selection is in one column: ${JSON.stringify(selection)}`);
    for (const r of [...rects, ...located]) {
      assert.ok(
        left ? right(r) < COLUMN_GAP_MIDDLE : r.x > COLUMN_GAP_MIDDLE,
        `${JSON.stringify(r)} stays in the ${left ? 'left' : 'right'} column`,
      );
    }
    await askRunner('make-card-two-column-shot', {
      action: 'reader',
      step: 'show',
      page: 1,
      highlights: 1,
      screenshot: 'make-card-two-column.png',
    });
  });

  it('CJK: a selection over a line break of a Chinese page becomes a card with the text as printed, joined without a space, found by card search', async function () {
    this.timeout(180_000);
    const { sel, note, bookmd5, noteid } = await makeCardOn(cjkPdf(), 'Make Card: CJK');
    const text = note.texts[0].text;
    // The browser's selection string has a line break and the font's Kangxi radicals (⽤ for 用); the card has neither.
    assert.equal(text, sel.selected.replace(/[\u2e80-\u2fdf]/gu, (c) => c.normalize('NFKC')).replace(/\s+/g, ''));
    assert.doesNotMatch(text, /[\s\u2e80-\u2fdf]/u);
    assert.match(text, /\p{Script=Han}{6}/u);
    const page = (await agent.pages(bookmd5, 1)).pages[0].text.normalize('NFKC').replace(/\s+/g, '');
    assert.ok(page.includes(text.normalize('NFKC')), `the card's text is the page's: ${text}`);
    // Card search finds it by a word inside the excerpt's run (CJK words in longer runs).
    const word = text.match(/光合作用|叶绿体|化学能|葡萄糖|有机物/u)?.[0] ?? text.slice(1, 4);
    await eventually(
      async () =>
        (await agent.search(word, { scope: 'notes' })).notes.some((n) => n.noteid === noteid) ? true : undefined,
      `search ${word} finding the card`,
    );
    await askRunner('make-card-cjk-shot', {
      action: 'reader',
      step: 'show',
      page: 1,
      highlights: 1,
      screenshot: 'make-card-cjk.png',
    });
  });
});
