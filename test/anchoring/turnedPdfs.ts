/**
 * PDFs whose runs do not go left to right on the page: pages turned by
 * /Rotate 90, 180 and 270 (pdf-lib, Helvetica: wide and narrow glyphs, so
 * an even share of a run's width misses the glyphs by points), and
 * right-to-left Hebrew printed by Chromium (DejaVu Sans). Each case names
 * quotes that stand on it once; test/unit/anchorGeometryTurned.test.ts
 * compares their rectangles with poppler's word boxes along the run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts, degrees } from 'pdf-lib';
import { printHtmlToPdf } from '../helpers/chromiumPrint';

export interface TurnedCase {
  file: string;
  page: number;
  /** The run's direction on the page: the axis the rectangle's ends are measured on. */
  axis: 'x' | 'y';
  quotes: string[];
}

const LINES = [
  'The turned page holds these words quietly.',
  'Wide glyphs MMM and thin ones iii differ a lot.',
  'WWW mmm lll fill the last line of it.',
];
const QUOTES = ['turned page holds these words', 'Wide glyphs MMM and thin ones iii differ', 'mmm lll fill the last'];

const HEBREW = ['שלום עולם זהו משפט בעברית עם מילים רבות.', 'הספר מסביר כיצד נמצא כל ציטוט בעמוד שלו.'];
const HEBREW_QUOTES = ['זהו משפט בעברית', 'מסביר כיצד נמצא כל ציטוט'];

/** Writes the PDFs into `dir` and answers the cases. */
export async function writeTurnedPdfs(dir: string): Promise<TurnedCase[]> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const turns = [0, 90, 180, 270];
  for (const turn of turns) {
    const page = doc.addPage([400, 300]);
    page.setRotation(degrees(turn));
    LINES.forEach((line, i) => page.drawText(line, { x: 40, y: 250 - 30 * i, size: 12, font }));
  }
  const turned = join(dir, 'turned.pdf');
  writeFileSync(turned, await doc.save());
  const paragraphs = HEBREW.map((p) => `<p dir="rtl">${p}</p>`).join('\n');
  const rtl = printHtmlToPdf(
    `<!doctype html><html><head><meta charset="utf-8"><style>body { font-family: "DejaVu Sans"; font-size: 16px; margin: 40px; }</style></head><body>${paragraphs}</body></html>`,
    join(dir, 'rtl.pdf'),
    'the right-to-left test PDF',
  );
  return [
    ...turns.map((turn, i) => ({
      file: turned,
      page: i + 1,
      axis: turn % 180 ? ('y' as const) : ('x' as const),
      quotes: QUOTES,
    })),
    { file: rtl, page: 1, axis: 'x', quotes: HEBREW_QUOTES },
  ];
}
