import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { draftResult, draftSections } from '../../src/server/domain/bundles/draftOutline';
import { parseResult } from '../../src/server/domain/bundles/resultParser';
import { loadPdfJs } from '../../src/server/ground/pdf/pdfjsLoader';
import { readOutline } from '../../src/server/ground/pdf/outline';
import type { OutlineSegment } from '../../src/server/ground/pdf/pdfTypes';
import { corpusFile } from './pdfCorpus';

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const draft = (book: Book, a: number, b: number) =>
  draftResult({ pages: range(a, b), segments: [{ startPage: a, endPage: b }] }, book.outline, book.pages);
const headings = (md: string) => md.split('\n').filter((l) => l.startsWith('#'));

/** The outline rule: the first heading is `#`, and none is deeper than the heading before it + 1. */
function assertValidOutline(md: string, what: string) {
  let prev = 0;
  for (const h of headings(md)) {
    const depth = /^#+/.exec(h)![0].length;
    assert.ok(depth <= prev + 1 && depth <= 6, `${what}: "${h}" after a level-${prev} heading\n${md}`);
    prev = depth;
  }
  const parsed = parseResult(md);
  assert.deepEqual(parsed.problems, [], what);
  assert.equal(parsed.headings, headings(md).length, what);
}

interface Book {
  outline: OutlineSegment[];
  pages: number;
}

describe('the draft result.md a prepare writes is a valid outline (#18 §3)', () => {
  const books: Record<string, Book> = {};
  before(async () => {
    const pdfjs = await loadPdfJs();
    for (const name of ['asymptote.pdf', '4ti2_manual.pdf', 'CAD.pdf']) {
      const doc = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(corpusFile(name))) }).promise;
      books[name] = { outline: await readOutline(doc), pages: doc.numPages };
      await doc.cleanup();
    }
  });

  it('a range that starts mid-chapter opens with its chapter and section, never an orphan ### heading', () => {
    // asymptote pp. 70–80: inside "6 Programming" › "Functions" (p. 69); the earlier draft began "## Default arguments".
    assert.equal(
      draft(books['asymptote.pdf'], 70, 80),
      '# 6 Programming\n\n## Functions\n\n### Default arguments\n\n### Named arguments\n\n### Rest arguments\n\n### Mathematical functions\n\n## Arrays\n',
    );
    // 4ti2 pp. 9–13: inside "Beginner's guide" › "Brief tutorial" › "Solving … zsolve" (p. 8).
    assert.deepEqual(headings(draft(books['4ti2_manual.pdf'], 9, 13)), [
      "# Beginner's guide",
      '## Brief tutorial',
      '### Solving linear systems over Z with zsolve',
      '### Solving linear systems over Q with qsolve',
      '### Computing extreme rays and Hilbert bases',
    ]);
  });

  it('a section that ends on the first page is a neighbour, left out; one that starts on the last page is kept', () => {
    // pp. 66–68: "Implicit scaling" starts on p. 68 and runs to p. 69: its start is a prepared page, so it is kept.
    const md = draft(books['asymptote.pdf'], 66, 68);
    assert.deepEqual(headings(md), [
      '# 6 Programming',
      '## Operators',
      '### Arithmetic & logical operators',
      '### Self & prefix operators',
      '### User-defined operators',
      '## Implicit scaling',
    ]);
    // pp. 19–26 and 90–94 (two runs): "3 Tutorial" › "Paths" and "6 Programming" › "Static" end on the first page; "5 Bezier curves" starts after.
    const two = draftResult(
      { pages: [...range(19, 26), ...range(90, 94)], segments: [] },
      books['asymptote.pdf'].outline,
      books['asymptote.pdf'].pages,
    );
    assert.deepEqual(headings(two), [
      '# 4 Drawing commands',
      '## draw',
      '## fill',
      '## clip',
      '## label',
      '# 7 LaTeX usage',
    ]);
    // A book without an outline: one heading per segment.
    assert.equal(
      draftResult(
        { pages: range(2, 5), segments: [{ startPage: 2, endPage: 5 }] },
        books['CAD.pdf'].outline,
        books['CAD.pdf'].pages,
      ),
      '# Pages 2–5\n',
    );
  });

  it('several sections starting on the last page: all of them, the one that runs on included, under their own chapter', () => {
    // 4ti2 p. 10: "…over Q with qsolve" ends there, "Computing extreme rays…" starts there too and runs to p. 14.
    assert.deepEqual(headings(draft(books['4ti2_manual.pdf'], 8, 10)), [
      "# Beginner's guide",
      '## Brief tutorial',
      '### Solving linear systems over Z with zsolve',
      '### Solving linear systems over Q with qsolve',
      '### Computing extreme rays and Hilbert bases',
    ]);
    // 4ti2 p. 41: a chapter and its two first sections start on one page; the draft had only the middle one,
    // under the previous chapter.
    assert.deepEqual(headings(draft(books['4ti2_manual.pdf'], 39, 41)), [
      '# Command-line reference',
      '## zbasis',
      '## zsolve',
      '# 4ti2 as a callable library',
      '## C API header file: 4ti2/4ti2.h',
      '## Example program: zsolve',
    ]);
  });

  it('every range of the corpus books, from every start page: a valid outline holding each section that starts on one of its pages', () => {
    let checked = 0;
    for (const [name, book] of Object.entries(books)) {
      for (let a = 1; a <= book.pages; a += 2) {
        for (const len of [1, 4, 13]) {
          const b = Math.min(book.pages, a + len - 1);
          const md = draft(book, a, b);
          assertValidOutline(md, `${name} ${a}–${b}`);
          const kept = draftSections(book.outline, range(a, b), book.pages);
          for (const s of book.outline)
            if (s.startPage >= a && s.startPage <= b)
              assert.ok(kept.includes(s), `${name} ${a}–${b}: ${s.title} (p. ${s.startPage})`);
          checked++;
        }
      }
    }
    assert.ok(checked > 300, `${checked} ranges`);
  });
});
