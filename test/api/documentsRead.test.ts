import assert from 'node:assert/strict';
import { sharedLibrary, stopSharedLibrary } from './documentsFixture';
import { corpusFile, pdftotext, qpdfBookmarks, wordOverlap, words } from '../unit/pdfCorpus';
import type { TestBridge } from '../helpers/bridgeFixture';

describe('document read routes on the corpus', function () {
  this.timeout(180_000);
  let t: TestBridge;
  let ids: Record<string, string>;
  before(async () => ({ t, ids } = await sharedLibrary()));
  after(() => stopSharedLibrary());

  for (const name of ['4ti2_manual.pdf', 'asymptote.pdf']) {
    it(`GET outline of ${name} equals its bookmarks`, async () => {
      const o = await t.client.call('GET /documents/{id}/outline', { params: { id: ids[name] } });
      assert.equal(o.hasToc, true);
      assert.deepEqual(
        o.segments.map((s) => ({ title: s.title, page: s.startPage, level: s.level })),
        qpdfBookmarks(corpusFile(name)),
      );
      assert.equal(o.tocSource, 'original');
    });
  }

  it('GET outline of CAD.pdf: no TOC, page count 7', async () => {
    const o = await t.client.call('GET /documents/{id}/outline', { params: { id: ids['CAD.pdf'] } });
    assert.deepEqual([o.hasToc, o.segments, o.pageCount], [false, [], 7]);
  });

  it('GET pages: text agrees with pdftotext (≥ 98 % of words), ≤ 60 pages per call, out-of-range pages empty', async () => {
    const id = ids['asymptote.pdf'];
    const r = await t.client.call('GET /documents/{id}/pages', { params: { id }, query: { start: 100, end: 159 } });
    assert.equal(r.pages.length, 60);
    const ref = pdftotext(corpusFile('asymptote.pdf'), 100, 159);
    const ours = r.pages.map((p) => p.text).join('\n');
    assert.ok(wordOverlap(ref, ours) >= 0.98, `overlap ${wordOverlap(ref, ours)}`);
    const tail = await t.client.call('GET /documents/{id}/pages', { params: { id }, query: { start: 195, end: 200 } });
    assert.deepEqual(
      tail.pages.map((p) => [p.page, p.text === '']),
      [
        [195, false],
        [196, false],
        [197, true],
        [198, true],
        [199, true],
        [200, true],
      ],
    );
    assert.equal(tail.pages[3].outOfRange, true);
  });

  it('GET pages of the scanned book returns OCR text (source ocr)', async () => {
    const r = await t.client.call('GET /documents/{id}/pages', {
      params: { id: ids['scanned-4ti2-p5-8.pdf'] },
      query: { start: 1, end: 4 },
    });
    assert.ok(r.pages.every((p) => p.source === 'ocr'));
    const overlap = wordOverlap(pdftotext(corpusFile('4ti2_manual.pdf'), 5, 8), r.pages.map((p) => p.text).join('\n'), {
      lettersOnly: true,
    });
    assert.ok(overlap >= 0.9, `OCR overlap ${overlap}`);
  });

  it('GET pages blocks=1 probe: {index,text,label} in layout order', async () => {
    const r = await t.client.call('GET /documents/{id}/pages', {
      params: { id: ids['4ti2_manual.pdf'] },
      query: { start: 5, end: 6, blocks: 1 },
    });
    for (const p of r.pages) {
      assert.ok(p.blocks && p.blocks.length > 0);
      assert.deepEqual(
        p.blocks.map((b) => b.index),
        p.blocks.map((_: unknown, i: number) => i),
      );
      for (const b of p.blocks) assert.deepEqual(Object.keys(b).sort(), ['index', 'label', 'text']);
    }
  });

  it('GET toc-candidates on asymptote.pdf ranks the real chapter headings first', async () => {
    const id = ids['asymptote.pdf'];
    const o = await t.client.call('GET /documents/{id}/outline', { params: { id } });
    const chapters = o.segments.filter((s) => s.level === 0);
    const r = await t.client.call('GET /documents/{id}/toc-candidates', {
      params: { id },
      query: { start: 1, end: 196 },
    });
    assert.equal(r.pagesScanned, 196);
    assert.equal(r.truncated, false);
    assert.equal(r.nextStart, undefined);
    const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
    const top = r.items.slice(0, chapters.length);
    const hits = top.filter((c) =>
      chapters.some((ch) => ch.startPage === c.page && norm(c.text).includes(norm(ch.title))),
    ).length;
    assert.ok(hits / chapters.length >= 0.8, `${hits}/${chapters.length}`);
    for (const c of r.items.slice(0, 5)) {
      assert.deepEqual(Object.keys(c).sort(), ['anchor', 'height', 'page', 'text']);
      assert.equal(c.anchor.page, c.page);
    }
    const out = await t.client.call('GET /documents/{id}/toc-candidates', {
      params: { id },
      query: { start: 500, end: 510 },
    });
    assert.equal(out.pagesScanned, 0);
    assert.equal(out.nextStart, undefined);
  });

  it('POST locate finds a sentence with a rect; no_match; navigate goes through the UiHost', async () => {
    const id = ids['4ti2_manual.pdf'];
    const page = (await t.client.call('GET /documents/{id}/pages', { params: { id }, query: { start: 6 } })).pages[0];
    const line = page.text.split('\n').find((l: string) => l.length > 40);
    assert.ok(line);
    const r = await t.client.call('POST /documents/{id}/locate', {
      params: { id },
      body: { page: 6, text: line, navigate: true },
    });
    assert.equal(r.found, true);
    assert.equal(r.score, 1);
    assert.ok(r.rect && r.rect.width > 0 && r.rect.height > 0);
    assert.equal(r.navigated, true);
    const ctx = await t.client.call('GET /context');
    assert.equal(ctx.currentPage?.page, 6);
    const miss = await t.client.call('POST /documents/{id}/locate', {
      params: { id },
      body: { page: 6, text: 'zebra quantum marmalade lighthouse' },
    });
    assert.deepEqual([miss.found, miss.status], [false, 'no_match']);
    const blank = await t.client.call('POST /documents/{id}/locate', {
      params: { id },
      body: { page: 2, text: 'anything at all' },
    });
    assert.deepEqual([blank.found, blank.status], [false, 'page_unreadable']);
    // With this book open, navigating in another one is refused and nothing moves.
    const other = await t.client.call('POST /documents/{id}/locate', {
      params: { id: ids['CAD.pdf'] },
      body: { page: 1, text: 'the', navigate: true },
    });
    assert.deepEqual([other.navigated, other.reason], [false, 'different_document_open']);
    assert.equal((await t.client.call('GET /context')).currentPage?.bookmd5, id);
  });

  it('GET sync-status: available_local_only; verifyHash=1 verifies', async () => {
    const id = ids['CAD.pdf'];
    const s = await t.client.call('GET /documents/{id}/sync-status', { params: { id } });
    assert.equal(s.state, 'available_local_only');
    assert.equal(s.hashVerification, 'not_requested');
    const v = await t.client.call('GET /documents/{id}/sync-status', { params: { id }, query: { verifyHash: 1 } });
    assert.equal(v.hashVerification, 'verified');
  });

  it('pages, parts, content: words of pdftotext sample sanity', async () => {
    const r = await t.client.call('GET /documents/{id}/pages/{page}/parts', {
      params: { id: ids['CAD.pdf'], page: '1' },
    });
    assert.deepEqual([r.parts, r.blanks, r.mapBacked], [[], [], true]);
    assert.ok(words(pdftotext(corpusFile('CAD.pdf'), 1, 1)).length > 10);
  });
});
