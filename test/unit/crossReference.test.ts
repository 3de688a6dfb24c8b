import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { crossReferenceRefusal, MAX_REBUILD_BYTES } from '../../src/server/ground/pdf/crossReference';
import { corpusFile } from './pdfCorpus';

const BOOKS = ['4ti2_manual.pdf', 'CAD.pdf', 'asymptote.pdf', 'scanned-4ti2-p5-8.pdf'];
const bytesOf = (name: string) => new Uint8Array(readFileSync(corpusFile(name)));
const text = (s: string) => new TextEncoder().encode(s);
const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};

// A limit of 0 checks every file, whatever its size: the corpus books are all under the real limit.
describe('crossReferenceRefusal: a PDF pdf.js would have to rebuild by scanning it whole', () => {
  for (const name of BOOKS)
    it(`${name}: its startxref points at its table → given to pdf.js`, () => {
      assert.equal(crossReferenceRefusal(bytesOf(name), 0), undefined);
    });

  it('a book with a header shifted by junk before %PDF (offsets count from the header) → given to pdf.js', () => {
    assert.equal(crossReferenceRefusal(join(text('junk before the header\n'), bytesOf('CAD.pdf')), 0), undefined);
  });

  it('%PDF-1.7 and random bytes (no startxref) → refused, naming the size, the limit and a repair', () => {
    const junk = join(text('%PDF-1.7\n'), randomFillSync(new Uint8Array(256 * 1024)));
    assert.match(crossReferenceRefusal(junk, 0) ?? '', /missing or broken.*allowed up to 0 MB.*qpdf/s);
  });

  it('a book cut before its end (a truncated download) → refused over the limit, given to pdf.js under it', () => {
    const book = bytesOf('asymptote.pdf');
    const cut = book.subarray(0, Math.floor(book.length * 0.9));
    assert.ok(crossReferenceRefusal(cut, 0));
    assert.equal(
      crossReferenceRefusal(cut),
      undefined,
      `${cut.length} bytes ≤ ${MAX_REBUILD_BYTES}: pdf.js rebuilds it`,
    );
  });

  it('a startxref pointing into the middle of nothing, or past the end → refused', () => {
    const junk = join(text('%PDF-1.7\n'), new Uint8Array(4096).fill(0x20));
    assert.ok(crossReferenceRefusal(join(junk, text('startxref\n100\n%%EOF\n')), 0));
    assert.ok(crossReferenceRefusal(join(junk, text('startxref\n99999999\n%%EOF\n')), 0));
    assert.equal(crossReferenceRefusal(join(junk, text('xref\n0 1\nstartxref\n4105\n%%EOF\n')), 0), undefined);
  });
});
