import assert from 'node:assert/strict';
import { extracted } from './pdfExtracted';
import { tocCandidates } from '../../src/server/ground/pdf/tocCandidates';

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

describe('pdf pipeline: toc-candidates', function () {
  this.timeout(120_000);

  it('ranks the real chapter headings of asymptote.pdf first', async () => {
    const book = await extracted('asymptote.pdf');
    const chapters = book.info.outline.filter((s) => s.level === 0);
    const cands = tocCandidates(book.pages);
    const top = cands.slice(0, chapters.length);
    const isChapter = (c: { text: string; page: number }) =>
      chapters.some(
        (ch) =>
          Math.abs(ch.startPage - c.page) <= 1 &&
          (norm(c.text).includes(norm(ch.title)) || norm(ch.title).includes(norm(c.text))),
      );
    const hits = top.filter(isChapter).length;
    assert.ok(
      hits / chapters.length >= 0.8,
      `${hits}/${chapters.length} of the top candidates are chapters: ${top
        .slice(0, 10)
        .map((c) => c.text)
        .join(' | ')}`,
    );
  });

  it('gives anchor {x centre, y, page} and height; skips running heads', async () => {
    const book = await extracted('4ti2_manual.pdf');
    const cands = tocCandidates(book.pages);
    assert.ok(cands.length > 5);
    for (const c of cands) {
      const page = book.pages[c.page - 1];
      assert.equal(c.anchor.page, c.page);
      assert.ok(c.anchor.x > 0 && c.anchor.x < page.width && c.anchor.y >= 0 && c.anchor.y < page.height);
      assert.ok(c.height > 0);
    }
    const texts = cands.map((c) => norm(c.text));
    const counts = new Map<string, number>();
    for (const t of texts) counts.set(t, (counts.get(t) ?? 0) + 1);
    assert.ok(Math.max(...counts.values()) <= 3, 'no running head repeated on every page');
  });

  it('finds nothing on pages without text', () => {
    assert.deepEqual(tocCandidates([{ page: 1, height: 800, items: [] }]), []);
  });
});
