/**
 * PDFs made for the anchoring set (pdf-lib, standard fonts): layouts where
 * extractors disagree on order. Two columns, prose with code blocks, and a
 * text column with side notes in the margin beside its lines.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { corpusFile } from '../unit/pdfCorpus';

/**
 * Prose for the pages: plain sentences of the Asymptote manual (letters,
 * spaces and light punctuation only, for WinAnsi standard fonts), each used
 * once so no text repeats between pages.
 */
export function manualProse(): string[] {
  return corpusSentences('asymptote.pdf', 5, 80);
}

/** Distinct plain sentences (40–200 characters, light punctuation) of a corpus book's pages, as pdftotext reads them. */
export function corpusSentences(file: string, first: number, last: number): string[] {
  const text = execFileSync('pdftotext', ['-f', String(first), '-l', String(last), corpusFile(file), '-'], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return [
    ...new Set(
      text
        .replace(/-\n/g, '')
        .replace(/\s+/g, ' ')
        .match(/[A-Z][A-Za-z ,;'()]{40,200}\./g) ?? [],
    ),
  ];
}

const CODE = [
  ['function anchor(quote, page) {', '  const tokens = tokenize(quote);', '  return align(tokens, page.tokens);', '}'],
  [
    'for (const card of bundle.cards) {',
    '  if (!card.excerpt) continue;',
    '  results.push(index.anchor(card.excerpt));',
    '}',
  ],
  ['const rect = union(rects);', 'store.write(card.id, { page, rect, rects });'],
];

const NOTES = [
  'Order of words matters.',
  'See the bundle guide.',
  'Points, top left origin.',
  'One box per line.',
  'Never anchor a paraphrase.',
  'Checked on every save.',
];

function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    const next = line ? `${line} ${w}` : w;
    if (font.widthOfTextAtSize(next, size) > width && line) {
      out.push(line);
      line = w;
    } else line = next;
  }
  if (line) out.push(line);
  return out;
}

/** The next paragraph: three sentences not used before. */
let prose: string[] = [];
let next = 0;
const para = () => [0, 1, 2].map(() => prose[next++ % prose.length]).join(' ');

async function twoColumns(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let pg = 0; pg < 2; pg++) {
    const page = doc.addPage([612, 792]);
    for (let col = 0; col < 2; col++) {
      let y = 740;
      for (let p = 0; y > 120; p++) {
        for (const l of wrap(para(), font, 10, 250)) {
          page.drawText(l, { x: 50 + col * 272, y, size: 10, font });
          y -= 12.5;
        }
        y -= 8;
      }
    }
  }
  return doc.save();
}

async function codeBlocks(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const mono = await doc.embedFont(StandardFonts.Courier);
  for (let pg = 0; pg < 2; pg++) {
    const page = doc.addPage([612, 792]);
    let y = 740;
    for (let p = 0; y > 160; p++) {
      y = lines(page, wrap(para(), font, 11, 500), font, 11, 56, y, 14) - 6;
      y = lines(page, CODE[(pg + p) % CODE.length], mono, 9, 80, y, 11) - 10;
    }
  }
  return doc.save();
}

async function sideNotes(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const small = await doc.embedFont(StandardFonts.HelveticaOblique);
  for (let pg = 0; pg < 2; pg++) {
    const page = doc.addPage([612, 792]);
    let y = 740;
    for (let p = 0; y > 160; p++) {
      const top = y;
      y = lines(page, wrap(para(), font, 10.5, 380), font, 10.5, 180, y, 13) - 10;
      // The note sits beside the paragraph's second line, in the left margin.
      lines(page, wrap(NOTES[(pg * 3 + p) % NOTES.length], small, 8, 110), small, 8, 40, top - 13, 10);
    }
  }
  return doc.save();
}

function lines(page: PDFPage, ls: string[], font: PDFFont, size: number, x: number, y: number, lead: number): number {
  for (const l of ls) {
    page.drawText(l, { x, y, size, font });
    y -= lead;
  }
  return y;
}

/** Writes the layout PDFs into `dir`; returns their file names. */
export async function writeLayoutPdfs(dir: string): Promise<string[]> {
  prose = manualProse();
  next = 0;
  const made: [string, Uint8Array][] = [
    ['two-columns.pdf', await twoColumns()],
    ['code-blocks.pdf', await codeBlocks()],
    ['side-notes.pdf', await sideNotes()],
  ];
  for (const [name, bytes] of made) writeFileSync(join(dir, name), bytes);
  return made.map(([name]) => join(dir, name));
}
