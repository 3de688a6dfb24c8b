/**
 * PDFs of two more producers for the geometry set (geometry.ts): a
 * LaTeX-like two-column page written with pdf-lib the way pdfTeX writes
 * text (no space glyphs: each justified line one TJ array whose numbers are
 * the interword glue and the kerns inside words; an italic word set in its
 * own font; a paragraph with character spacing, one horizontally scaled),
 * and an HTML page printed by Chromium (justified, letter-spaced, italic and
 * bold runs, a list).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFOperator,
  PDFOperatorNames,
  StandardFonts,
  beginText,
  endText,
  setCharacterSpacing,
  setFontAndSize,
  setTextMatrix,
  type PDFFont,
  type PDFPage,
} from 'pdf-lib';
import { manualProse } from './layoutPdfs';
import { printHtmlToPdf } from '../helpers/chromiumPrint';

const SIZE = 10;
const LEAD = 12;
const COLUMN = 235;

/** Pairs kerned inside a word (thousandths of the font size, as TeX's font metrics do). */
function kernOf(a: string, b: string): number {
  if (/[TVWYF]/.test(a) && /[aeouyr.,]/.test(b)) return 80;
  if (/[rvwy]/.test(a) && /[.,]/.test(b)) return 40;
  if (a === 'f' && /[aeo]/.test(b)) return 20;
  return 0;
}

interface Word {
  text: string;
  italic: boolean;
}

/** A word as TJ pieces: strings between kerns. */
function pieces(font: PDFFont, text: string): (ReturnType<PDFFont['encodeText']> | PDFNumber)[] {
  const out: (ReturnType<PDFFont['encodeText']> | PDFNumber)[] = [];
  let run = '';
  for (let k = 0; k < text.length; k++) {
    run += text[k];
    const kern = k + 1 < text.length ? kernOf(text[k], text[k + 1]) : 0;
    if (kern) {
      out.push(font.encodeText(run), PDFNumber.of(kern));
      run = '';
    }
  }
  if (run) out.push(font.encodeText(run));
  return out;
}

/** Sets one justified line at (x, y): runs of one font as TJ arrays, the glue between words as TJ numbers. */
function setLine(page: PDFPage, fonts: [PDFName, PDFFont][], words: Word[], x: number, y: number, last: boolean): void {
  const fontOf = (w: Word) => fonts[w.italic ? 1 : 0];
  const width = words.reduce((s, w) => s + fontOf(w)[1].widthOfTextAtSize(w.text, SIZE), 0);
  const glue = last ? SIZE * 0.333 : (COLUMN - width) / Math.max(1, words.length - 1);
  let at = x;
  let i = 0;
  while (i < words.length) {
    const [name, font] = fontOf(words[i]);
    const arr: (ReturnType<PDFFont['encodeText']> | PDFNumber)[] = [];
    let j = i;
    let runWidth = 0;
    for (; j < words.length && fontOf(words[j])[1] === font; j++) {
      if (j > i) arr.push(PDFNumber.of((-glue * 1000) / SIZE));
      arr.push(...pieces(font, words[j].text));
      runWidth += font.widthOfTextAtSize(words[j].text, SIZE) + (j > i ? glue : 0);
    }
    page.pushOperators(
      setFontAndSize(name, SIZE),
      setTextMatrix(1, 0, 0, 1, at, y),
      PDFOperator.of(PDFOperatorNames.ShowTextAdjusted, [page.doc.context.obj(arr)]),
    );
    at += runWidth + glue;
    i = j;
  }
}

/** Words of a paragraph, every 9th in italic. */
const wordsOf = (text: string): Word[] => text.split(' ').map((t, k) => ({ text: t, italic: k % 9 === 4 }));

function fill(words: Word[], fonts: [PDFName, PDFFont][]): Word[][] {
  const lines: Word[][] = [[]];
  let width = 0;
  for (const w of words) {
    const ww = fonts[w.italic ? 1 : 0][1].widthOfTextAtSize(w.text, SIZE);
    const line = lines[lines.length - 1];
    if (line.length && width + ww + line.length * SIZE * 0.28 > COLUMN) {
      lines.push([w]);
      width = ww;
    } else {
      line.push(w);
      width += ww;
    }
  }
  return lines;
}

async function latexLike(prose: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const roman = await doc.embedFont(StandardFonts.TimesRoman);
  const italic = await doc.embedFont(StandardFonts.TimesRomanItalic);
  let next = 0;
  for (let pg = 0; pg < 2; pg++) {
    const page = doc.addPage([612, 792]);
    const fonts: [PDFName, PDFFont][] = [
      [page.node.newFontDictionary(roman.name, roman.ref), roman],
      [page.node.newFontDictionary(italic.name, italic.ref), italic],
    ];
    page.pushOperators(beginText());
    for (let col = 0; col < 2; col++) {
      let y = 730;
      for (let p = 0; y > 140; p++) {
        const spacing = p % 3 === 1 ? 0.3 : 0;
        page.pushOperators(
          setCharacterSpacing(spacing),
          PDFOperator.of(PDFOperatorNames.SetTextHorizontalScaling, [PDFNumber.of(p % 3 === 2 ? 94 : 100)]),
        );
        const lines = fill(wordsOf([0, 1].map(() => prose[next++ % prose.length]).join(' ')), fonts);
        lines.forEach((l, k) => setLine(page, fonts, l, 60 + col * 262, y - k * LEAD, k === lines.length - 1));
        y -= lines.length * LEAD + 8;
      }
    }
    page.pushOperators(endText());
  }
  return doc.save();
}

function chromiumPdf(dir: string, prose: string[]): string {
  const pdf = join(dir, 'chromium-page.pdf');
  const p = (k: number) => prose.slice(k * 3, k * 3 + 3).join(' ');
  const emphasised = (s: string) =>
    s
      .split(' ')
      .map((w, k) => (k % 11 === 3 ? `<em>${w}</em>` : k % 13 === 7 ? `<b>${w}</b>` : w))
      .join(' ');
  const body = [
    `<h1>Anchors on a printed page</h1>`,
    `<p class="j">${emphasised(p(0))}</p>`,
    `<p class="spaced">${p(1)}</p>`,
    `<ul><li>${p(2)}</li><li>${p(3)}</li></ul>`,
    `<div class="cols"><p>${emphasised(p(4))}</p><p>${p(5)}</p><p>${p(6)}</p></div>`,
  ].join('\n');
  return printHtmlToPdf(
    `<!doctype html><html><head><meta charset="utf-8"><style>
      body { font-family: "DejaVu Serif", serif; font-size: 13px; margin: 48px; line-height: 1.35; }
      .j { text-align: justify; } .spaced { letter-spacing: 0.4px; }
      .cols { column-count: 2; column-gap: 28px; text-align: justify; font-family: "DejaVu Sans", sans-serif; }
    </style></head><body>${body}</body></html>`,
    pdf,
    'the geometry test page',
  );
}

/** Writes the two PDFs into `dir`; returns their paths. */
export async function writeGeometryPdfs(dir: string): Promise<string[]> {
  const prose = manualProse();
  const latex = join(dir, 'latex-like.pdf');
  writeFileSync(latex, await latexLike(prose.slice(200)));
  return [latex, chromiumPdf(dir, prose.slice(100))];
}
