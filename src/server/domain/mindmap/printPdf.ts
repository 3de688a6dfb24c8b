import type fontkitModule from '@pdf-lib/fontkit';
import type { PDFFont, PDFPage } from 'pdf-lib';
import { pdfLib } from '../../ground/pdf/pdfLib';
import type { PrintPlan } from './printPlan';
import type { PrintCard } from './printTree';

const W = 595.28;
const H = 841.89;
const M = 36;
const HEADER = 28;

/** Light fills for colorIndex 0..15 (none: white). */
const FILLS: [number, number, number][] = [
  [1, 0.95, 0.7],
  [0.85, 0.95, 0.8],
  [0.82, 0.9, 1],
  [1, 0.85, 0.85],
  [0.92, 0.86, 1],
  [1, 0.9, 0.8],
  [0.82, 0.97, 0.97],
  [0.93, 0.93, 0.93],
  [1, 1, 0.8],
  [0.88, 1, 0.88],
  [0.88, 0.93, 1],
  [1, 0.9, 0.94],
  [0.95, 0.9, 1],
  [1, 0.93, 0.86],
  [0.9, 1, 1],
  [0.9, 0.9, 0.9],
];

interface Ctx {
  font: PDFFont;
  bold: PDFFont;
  charset: Set<number>;
  replaced: number;
}

/** Standard fonts encode WinAnsi only, the CJK font what it covers: other characters print as "?" (counted for a warning). */
function printable(ctx: Ctx, s: string): string {
  let out = '';
  for (const ch of s) {
    if (ctx.charset.has(ch.codePointAt(0)!)) out += ch;
    else {
      out += '?';
      ctx.replaced++;
    }
  }
  return out;
}

function fit(font: PDFFont, s: string, size: number, width: number): string {
  if (font.widthOfTextAtSize(s, size) <= width) return s;
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (font.widthOfTextAtSize(`${s.slice(0, mid)}…`, size) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${s.slice(0, lo)}…`;
}

function header(ctx: Ctx, p: PDFPage, left: string, right: string): void {
  const { rgb } = pdfLib();
  p.drawText(fit(ctx.bold, left, 11, W - 2 * M - 80), { x: M, y: H - M - 11, size: 11, font: ctx.bold });
  p.drawText(right, {
    x: W - M - ctx.font.widthOfTextAtSize(right, 9),
    y: H - M - 10,
    size: 9,
    font: ctx.font,
    color: rgb(0.4, 0.4, 0.4),
  });
  p.drawLine({
    start: { x: M, y: H - M - HEADER + 8 },
    end: { x: W - M, y: H - M - HEADER + 8 },
    thickness: 0.5,
    color: rgb(0.7, 0.7, 0.7),
  });
}

/** An outline of the page's cards: one row each, indented by depth, boxed, joined to their parent by elbow lines. */
function drawTreePage(ctx: Ctx, p: PDFPage, cards: PrintCard[], connectors: boolean): void {
  const { rgb } = pdfLib();
  const top = H - M - HEADER;
  const rowH = Math.min(24, (top - M) / cards.length);
  const size = Math.max(4, Math.min(11, rowH * 0.55));
  const minDepth = Math.min(...cards.map((c) => c.depth));
  const span = Math.max(1, Math.max(...cards.map((c) => c.depth)) - minDepth);
  const indent = Math.min(22, (W - 2 * M - 160) / span);
  const boxes = new Map<string, { x: number; y: number; h: number }>();
  cards.forEach((c, i) => {
    const x = M + (c.depth - minDepth) * indent;
    const h = rowH * 0.8;
    const y = top - (i + 1) * rowH + (rowH - h) / 2;
    const label = fit(ctx.font, printable(ctx, c.label), size, W - M - x - 8);
    const w = ctx.font.widthOfTextAtSize(label, size) + 8;
    const fill = c.colorIndex === null ? [1, 1, 1] : FILLS[c.colorIndex & 15];
    p.drawRectangle({
      x,
      y,
      width: w,
      height: h,
      color: rgb(fill[0], fill[1], fill[2]),
      borderColor: rgb(0.35, 0.35, 0.45),
      borderWidth: 0.6,
    });
    p.drawText(label, { x: x + 4, y: y + (h - size) / 2 + size * 0.2, size, font: ctx.font });
    boxes.set(c.noteid, { x, y, h });
    const parent = c.parent !== null ? boxes.get(c.parent) : undefined;
    if (connectors && parent) {
      const px = parent.x + Math.min(6, indent / 2);
      const cy = y + h / 2;
      const line = { thickness: 0.6, color: rgb(0.45, 0.45, 0.55) };
      p.drawLine({ start: { x: px, y: parent.y }, end: { x: px, y: cy }, ...line });
      p.drawLine({ start: { x: px, y: cy }, end: { x, y: cy }, ...line });
    }
  });
}

/** Card flow: each card its own box, one column (up to 4 cards) or two, the title wrapped inside. */
function drawCardPage(ctx: Ctx, p: PDFPage, cards: PrintCard[], perPage: number): void {
  const { rgb } = pdfLib();
  const cols = perPage > 4 ? 2 : 1;
  const rows = Math.ceil(perPage / cols);
  const gap = 10;
  const top = H - M - HEADER;
  const bw = (W - 2 * M - (cols - 1) * gap) / cols;
  const bh = (top - M - (rows - 1) * gap) / rows;
  const size = Math.max(8, Math.min(16, bh / 6));
  cards.forEach((c, i) => {
    const x = M + (i % cols) * (bw + gap);
    const y = top - Math.floor(i / cols) * (bh + gap) - bh;
    const fill = c.colorIndex === null ? [1, 1, 1] : FILLS[c.colorIndex & 15];
    p.drawRectangle({
      x,
      y,
      width: bw,
      height: bh,
      color: rgb(fill[0], fill[1], fill[2]),
      borderColor: rgb(0.35, 0.35, 0.45),
      borderWidth: 0.8,
    });
    const words = printable(ctx, c.label).split(' ');
    const lines: string[] = [];
    for (const word of words) {
      const last = lines[lines.length - 1];
      if (last !== undefined && ctx.font.widthOfTextAtSize(`${last} ${word}`, size) <= bw - 16)
        lines[lines.length - 1] = `${last} ${word}`;
      else lines.push(fit(ctx.font, word, size, bw - 16));
    }
    const maxLines = Math.max(1, Math.floor((bh - 16) / (size * 1.3)));
    lines
      .slice(0, maxLines)
      .forEach((l, k) => p.drawText(l, { x: x + 8, y: y + bh - 8 - size - k * size * 1.3, size, font: ctx.font }));
  });
}

/** Draws a saved plan page by page; returns the PDF bytes and how many characters the font could not print. */
export async function drawPlan(
  plan: PrintPlan,
  setTitle: string,
  cards: Map<string, PrintCard>,
  cjkFont?: Uint8Array,
): Promise<{ bytes: Uint8Array; replacedChars: number }> {
  const { PDFDocument, StandardFonts } = pdfLib();
  const doc = await PDFDocument.create();
  let ctx: Ctx;
  if (cjkFont) {
    // Subset: only the glyphs printed are embedded (a few KB, not the font's megabytes). It covers Latin too.
    doc.registerFontkit(firstFaceOfCollections((await import('@pdf-lib/fontkit')).default));
    const font = await doc.embedFont(cjkFont, { subset: true });
    ctx = { font, bold: font, charset: new Set(font.getCharacterSet()), replaced: 0 };
  } else {
    const font = await doc.embedFont(StandardFonts.Helvetica);
    ctx = {
      font,
      bold: await doc.embedFont(StandardFonts.HelveticaBold),
      charset: new Set(font.getCharacterSet()),
      replaced: 0,
    };
  }
  doc.setTitle(`${setTitle} — mind map`);
  doc.setProducer('Study Bridge');
  plan.pages.forEach((pg, i) => {
    const p = doc.addPage([W, H]);
    const anchor = cards.get(pg.anchorNoteId)!;
    const slice = pg.sliceCount > 1 ? ` (${pg.sliceIndex + 1}/${pg.sliceCount})` : '';
    header(
      ctx,
      p,
      printable(
        ctx,
        plan.mode === 'keepStructure' && anchor.label !== setTitle
          ? `${setTitle} · ${anchor.label}${slice}`
          : `${setTitle}${slice}`,
      ),
      `${i + 1} / ${plan.pages.length}`,
    );
    const list = pg.visibleNoteIds.map((id) => cards.get(id)!);
    if (plan.mode === 'cardFlow') drawCardPage(ctx, p, list, plan.exportOptions.cardsPerPage);
    else drawTreePage(ctx, p, list, plan.exportOptions.drawConnectors);
  });
  return { bytes: await doc.save({ useObjectStreams: true }), replacedChars: ctx.replaced };
}

/**
 * fontkit for pdf-lib, reading a font collection (.ttc) as its first face: pdf-lib expects one font.
 * fontkit is imported only when a CJK print needs it: loading it inflates its tables (~0.2–0.4 s of every bridge start).
 */
function firstFaceOfCollections(fontkit: typeof fontkitModule) {
  return {
    create(data: Uint8Array, postscriptName?: string) {
      const f = fontkit.create(data, postscriptName) as ReturnType<typeof fontkit.create> & {
        fonts?: Array<ReturnType<typeof fontkit.create>>;
      };
      return f.fonts ? f.fonts[0] : f;
    },
  };
}
