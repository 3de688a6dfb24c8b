import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { degrees, PDFDocument } from 'pdf-lib';
import { closePdf, openPdf } from '../../src/server/ground/pdf/pdfjsLoader';
import { buildAnnotatedPdf } from '../../src/server/ground/pdf/highlightWrite';
import { readAnnotations } from '../../src/server/ground/pdf/pdfAnnotations';
import { textUnderQuads } from '../../src/server/domain/annotations/quadText';
import { nearestPaletteIndex, paletteRgb01 } from '../../src/server/domain/annotations/paletteColor';
import { NOTE_PALETTE_HEX } from '../../src/server/domain/cards/notePalette';
import { corpusFile } from './pdfCorpus';

const near = (a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }) =>
  Math.abs(a.x - b.x) <= 0.5 && Math.abs(a.y - b.y) <= 0.5 && Math.abs(a.w - b.w) <= 0.5 && Math.abs(a.h - b.h) <= 0.5;

describe('PDF annotation geometry: what the writer puts is where pdf.js reads it', function () {
  this.timeout(60_000);

  for (const rotate of [0, 90, 180, 270]) {
    it(`a page rotated ${rotate}° with an offset crop box: quads written in top-left page points read back in the same place`, async () => {
      const src = await PDFDocument.load(readFileSync(corpusFile('CAD.pdf')));
      const page = src.getPage(1);
      page.setRotation(degrees(rotate));
      page.setCropBox(20, 30, 560, 700);
      const source = await src.save();
      // Two lines of a highlight, in the viewport's top-left coordinates (as the reader and page text use).
      const quads = [
        { x: 40, y: 50, w: 200, h: 12 },
        { x: 40, y: 64, w: 120, h: 12 },
      ];
      const out = await buildAnnotatedPdf(source, [
        { page: 2, quads, color: [1, 0.88, 0.3], contents: 'Title\n\nComment' },
      ]);
      const doc = await openPdf(out);
      try {
        const [a] = await readAnnotations(doc, [2]);
        assert.equal(a.kind, 'Highlight');
        assert.equal(a.quads.length, 2);
        a.quads.forEach((q, i) =>
          assert.ok(
            near(q, quads[i]),
            `rotate ${rotate}: quad ${i} ${JSON.stringify(q)} vs ${JSON.stringify(quads[i])}`,
          ),
        );
        assert.equal(a.contents, 'Title\n\nComment');
        assert.equal(a.author, 'Study Bridge');
      } finally {
        await closePdf(doc);
      }
    });
  }

  it('text under quads: only the characters whose centre is inside, runs joined by one space', () => {
    const items = [
      { str: 'Hello wide world', x: 0, y: 0, w: 160, h: 10, fontHeight: 10 },
      { str: 'second line here', x: 0, y: 12, w: 160, h: 10, fontHeight: 10 },
      { str: 'not marked', x: 0, y: 40, w: 100, h: 10, fontHeight: 10 },
    ];
    // "wide world" (chars 6..15) on line 1, "second" (0..5) on line 2.
    assert.equal(
      textUnderQuads(items, [
        { x: 60, y: -1, w: 100, h: 12 },
        { x: 0, y: 11, w: 60, h: 12 },
      ]),
      'wide world second',
    );
    assert.equal(textUnderQuads(items, [{ x: 300, y: 0, w: 10, h: 10 }]), '');
  });

  it('colours: each palette colour maps to itself, and common highlighter colours to the obvious entry', () => {
    NOTE_PALETTE_HEX.forEach((_, i) =>
      assert.equal(nearestPaletteIndex(paletteRgb01(i).map((c) => Math.round(c * 255)) as [number, number, number]), i),
    );
    assert.equal(nearestPaletteIndex([255, 255, 0]), 4, 'yellow');
    assert.equal(nearestPaletteIndex([0, 255, 0]), 5, 'green');
    assert.equal(nearestPaletteIndex([255, 0, 0]), 7, 'red');
    assert.equal(nearestPaletteIndex([0, 0, 255]), 10, 'blue');
  });
});
