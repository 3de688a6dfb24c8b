/**
 * PDFs of CJK set in columns, top to bottom (test/unit/anchorGeometryVertical.test.ts):
 *
 * - a vertical font (Type0, Identity-V) written with pdf-lib: each glyph
 *   stands at its vertical origin, centred across its column, and advances
 *   down by its vertical metrics (DW2's default 1 em; W2 gives one glyph
 *   0.8 em), with a TJ gap in one column. Not embedded, so poppler and pdf.js
 *   draw substitutes; where each glyph's em box stands follows from the PDF
 *   alone (ISO 32000 9.7.4.3), and `boxes` gives it;
 * - writing-mode: vertical-rl printed by Chromium (Noto Sans CJK JP): each
 *   glyph set upright on its own, a Type 3 font without metrics.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import type { Rect } from '../../src/server/ground/pdf/pdfTypes';
import { printHtmlToPdf } from '../helpers/chromiumPrint';

export interface VerticalFont {
  file: string;
  /** Page 1's em box of every glyph of each column (top-left page points), in column order. */
  boxes: { char: string; box: Rect }[][];
  /** Quotes that stand once, each within one column. */
  quotes: string[];
}

const SIZE = 20;
const PAGE = 400;
/** Each column: its glyphs, and where a TJ gap of `gap` thousandths of an em (a positive number moves down in a column) follows glyph `after`. */
const COLUMNS = [
  { text: '光合作用は植物の営みである', tj: undefined },
  { text: '細胞の中で反応が起きる。', tj: { after: 4, gap: 500 } },
  { text: '葉緑体は光を集めて糖を作る', tj: undefined },
];
/** は advances 0.8 em down (W2: [cid cid w1y vx vy]); the rest DW2's default, 1 em. */
const SHORT = { char: 'は', w1y: -800 };

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** The em box of each glyph: across, half the width (DW 1000) either side of the column; down, its advance. */
function emBoxes(): { char: string; box: Rect }[][] {
  return COLUMNS.map(({ text, tj }, c) => {
    const x = 300 - 60 * c;
    let top = PAGE - 360;
    return [...text].map((char, k) => {
      const adv = (char === SHORT.char ? -SHORT.w1y : 1000) * (SIZE / 1000);
      // A W2 glyph's vy is its own (880 here, as DW2's): its box still starts at the current point.
      const box = { x: x - SIZE / 2, y: top, w: SIZE, h: adv };
      top += adv + (tj && tj.after === k ? (tj.gap * SIZE) / 1000 : 0);
      return { char, box };
    });
  });
}

async function writeIdentityV(file: string): Promise<void> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([PAGE, PAGE]);
  const chars = [...new Set(COLUMNS.map((c) => c.text).join(''))];
  const cid = (c: string) => chars.indexOf(c) + 1;
  const ctx = doc.context;
  const cmap = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def /CMapType 2 def 1 begincodespacerange <0000> <FFFF> endcodespacerange',
    `${chars.length} beginbfchar ${chars.map((c) => `<${hex4(cid(c))}> <${hex4(c.charCodeAt(0))}>`).join(' ')} endbfchar`,
    'endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
  const descriptor = ctx.obj({
    Type: 'FontDescriptor',
    FontName: 'KozMinPr6N-Regular',
    Flags: 4,
    FontBBox: [-100, -200, 1100, 900],
    ItalicAngle: 0,
    Ascent: 880,
    Descent: -120,
    CapHeight: 700,
    StemV: 80,
  });
  const cidFont = ctx.obj({
    Type: 'Font',
    Subtype: 'CIDFontType0',
    BaseFont: 'KozMinPr6N-Regular',
    FontDescriptor: ctx.register(descriptor),
    DW: 1000,
    W2: [cid(SHORT.char), cid(SHORT.char), SHORT.w1y, 500, 880],
  });
  cidFont.set(
    PDFName.of('CIDSystemInfo'),
    ctx.obj({ Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 }),
  );
  const font = ctx.obj({
    Type: 'Font',
    Subtype: 'Type0',
    BaseFont: 'KozMinPr6N-Regular',
    Encoding: 'Identity-V',
    DescendantFonts: [ctx.register(cidFont)],
    ToUnicode: ctx.register(ctx.stream(cmap)),
  });
  page.node.setFontDictionary(PDFName.of('F1'), ctx.register(font));
  const shown = (s: string) => `<${[...s].map((c) => hex4(cid(c))).join('')}>`;
  const ops = COLUMNS.map(({ text, tj }, c) => {
    const cs = [...text];
    const show = tj
      ? `[${shown(cs.slice(0, tj.after + 1).join(''))} ${tj.gap} ${shown(cs.slice(tj.after + 1).join(''))}] TJ`
      : `${shown(text)} Tj`;
    return `BT /F1 ${SIZE} Tf 1 0 0 1 ${300 - 60 * c} 360 Tm ${show} ET`;
  });
  page.node.set(PDFName.of('Contents'), ctx.register(ctx.stream(ops.join('\n'))));
  writeFileSync(file, await doc.save({ useObjectStreams: false }));
}

/** Writes the vertical-font PDF into `dir`. */
export async function writeVerticalFontPdf(dir: string): Promise<VerticalFont> {
  const file = join(dir, 'identity-v.pdf');
  await writeIdentityV(file);
  return {
    file,
    boxes: emBoxes(),
    quotes: ['光合作用は植物', 'は植物の営みである', '細胞の中で反応', '反応が起きる', '光を集めて糖'],
  };
}

/** Chromium's columns: quotes begin and end with a dense kanji, so their ink reaches near their em boxes' ends. */
export const CHROMIUM_COLUMNS = ['細胞の中の葉緑体で光合成が行われる', '植物は光と水と二酸化炭素から糖を作る'];
export const CHROMIUM_QUOTES = ['細胞の中', '葉緑体で光合成', '植物は光と水', '酸化炭素から糖'];

/** Prints CHROMIUM_COLUMNS as two vertical-rl paragraphs into `dir`. */
export function writeChromiumVertical(dir: string): string {
  const paragraphs = CHROMIUM_COLUMNS.map((p) => `<p>${p}</p>`).join('\n');
  return printHtmlToPdf(
    `<!doctype html><html><head><meta charset="utf-8"><style>
      body { font-family: "Noto Sans CJK JP"; font-size: 16px; margin: 40px; }
      .v { writing-mode: vertical-rl; height: 400px; }
    </style></head><body><div class="v">${paragraphs}</div></body></html>`,
    join(dir, 'vertical-rl.pdf'),
    'the vertical-rl test PDF',
  );
}
