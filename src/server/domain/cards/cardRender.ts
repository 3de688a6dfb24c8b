import type { PDFPage } from 'pdf-lib';
import type { Store } from '../../ground/store/store';
import type { ExcerptRenderDeps } from './cardImages';
import { cjkRenderWarning, cssFont, ensureRenderFonts, type FontSpec } from './cardFonts';
import { layoutCard, type CardLayout, type LayoutItem } from './cardLayout';
import { readCardView } from './cardView';
import { partPicture } from './noteContent';
import { nativeCanvas } from '../../ground/pdf/nativeCanvas';

/** What rendering a card reads: its rows, and the excerpt pictures. */
type Services = ExcerptRenderDeps & { store: Store };

/** The alphabetic baseline of a line box (Liberation Sans: ascent 0.905, descent 0.212 of the size). */
const baseline = (y: number, h: number, f: FontSpec) => y + (h - 1.117 * f.size) / 2 + 0.905 * f.size;

async function measurer() {
  await ensureRenderFonts();
  const { createCanvas } = nativeCanvas();
  const ctx = createCanvas(1, 1).getContext('2d');
  let current: FontSpec | undefined;
  return (text: string, font: FontSpec) => {
    // Setting ctx.font parses the CSS string: only when it changes.
    if (current !== font) {
      ctx.font = cssFont(font);
      current = font;
    }
    return ctx.measureText(text).width;
  };
}

/** Reads the card and lays it out (422 RENDER_TOO_LARGE before any drawing). */
export async function planCardRender(services: Services, noteid: string, width: number): Promise<CardLayout> {
  const view = await readCardView(services, noteid);
  return layoutCard(view, width, await measurer());
}

/** What a render of `layout` cannot draw as asked (CJK text on a machine without a CJK font). Call after planCardRender. */
export function renderWarnings(layout: CardLayout): string[] {
  const w = cjkRenderWarning(layout.items.flatMap((i) => (i.kind === 'text' ? [i.text] : [])));
  return w ? [w] : [];
}

/** A picture item as PNG at `scale` × its box (masks drawn: the render shows the composite). */
const pictureAt = (services: Services, item: Extract<LayoutItem, { kind: 'picture' }>, scale: number) =>
  partPicture(services, item.picture.part, Math.max(item.w, item.h) * scale, true);

/** The whole card as one PNG, `layout.width` pixels wide. */
export async function renderCardPng(services: Services, layout: CardLayout): Promise<Buffer> {
  const { createCanvas, loadImage } = nativeCanvas();
  const canvas = createCanvas(layout.width, layout.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, layout.width, layout.height);
  ctx.textBaseline = 'alphabetic';
  for (const item of layout.items) {
    if (item.kind === 'box') {
      ctx.fillStyle = item.colour;
      ctx.fillRect(item.x, item.y, item.w, item.h);
    } else if (item.kind === 'text') {
      ctx.font = cssFont(item.font);
      ctx.fillStyle = item.colour;
      ctx.fillText(item.text, item.x, baseline(item.y, item.h, item.font));
    } else {
      const pic = await pictureAt(services, item, 1);
      ctx.drawImage(await loadImage(pic.png), item.x, item.y, item.w, item.h);
    }
  }
  return canvas.encode('png');
}

const PX_TO_PT = 0.75;

/** Page tops (in layout pixels): a page breaks before the text line or picture that would cross its bottom. */
function paginate(layout: CardLayout, pageH: number, margin: number): number[] {
  const tops = [0];
  for (const item of layout.items) {
    if (item.kind === 'box') continue;
    const top = tops[tops.length - 1];
    if (item.y + item.h > top + pageH - margin && item.y > top + margin) tops.push(item.y - margin);
  }
  return tops;
}

const rgbOf = async (hex: string) => {
  const { rgb } = await import('pdf-lib');
  const n = parseInt(hex.slice(1), 16);
  return rgb(((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255);
};

/**
 * The card as a PDF drawn with pdf-lib on pages of A4 proportion: text in
 * Helvetica (vector, selectable; a line with characters Helvetica cannot
 * encode is drawn as a picture of that line instead), pictures as PNG at
 * twice their on-page pixels.
 */
export async function renderCardPdf(services: Services, layout: CardLayout): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  // No creation/modification dates: the same card gives the same bytes (the MCP channel and HTTP agree, caches can key on it).
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setTitle('Study Bridge card');
  pdf.setProducer('Study Bridge');
  const fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
  };
  const encodable = { regular: new Set(fonts.regular.getCharacterSet()), bold: new Set(fonts.bold.getCharacterSet()) };
  const W = layout.width;
  const pageH = Math.round(W * Math.SQRT2);
  const margin = 28;
  const tops = paginate(layout, pageH, margin);
  // The last page ends with the card (a short card is one page its own height).
  const heights = tops.map((top, i) => (i + 1 < tops.length ? pageH : Math.min(pageH, layout.height - top)));
  const pages = tops.map((_, i) => pdf.addPage([W * PX_TO_PT, heights[i] * PX_TO_PT]));
  const pageOf = (y: number) => {
    let i = 0;
    while (i + 1 < tops.length && tops[i + 1] <= y) i++;
    return i;
  };
  const toPdfY = (i: number, y: number) => (heights[i] - (y - tops[i])) * PX_TO_PT;

  for (const item of layout.items) {
    if (item.kind === 'box') {
      await drawBox(pages, tops, pageH, toPdfY, item);
      continue;
    }
    const i = pageOf(item.y);
    const page = pages[i];
    if (item.kind === 'text') {
      const key = item.font.bold ? 'bold' : 'regular';
      if (Array.from(item.text).every((ch) => encodable[key].has(ch.codePointAt(0)!))) {
        page.drawText(item.text, {
          x: item.x * PX_TO_PT,
          y: toPdfY(i, baseline(item.y, item.h, item.font)),
          size: item.font.size * PX_TO_PT,
          font: fonts[key],
          color: await rgbOf(item.colour),
        });
        continue;
      }
      const { png, w } = await linePng(item);
      const img = await pdf.embedPng(png);
      page.drawImage(img, {
        x: item.x * PX_TO_PT,
        y: toPdfY(i, item.y + item.h),
        width: w * PX_TO_PT,
        height: item.h * PX_TO_PT,
      });
      continue;
    }
    // A picture taller than a page is scaled down to fit one.
    const fit = Math.min(1, (pageH - 2 * margin) / item.h);
    const pic = await pictureAt(services, item, 2);
    const img = await pdf.embedPng(pic.png);
    page.drawImage(img, {
      x: item.x * PX_TO_PT,
      y: toPdfY(i, item.y + item.h * fit),
      width: item.w * fit * PX_TO_PT,
      height: item.h * fit * PX_TO_PT,
    });
  }
  return Buffer.from(await pdf.save());
}

/** A box (the excerpt bar) may span pages: its part on each. */
async function drawBox(
  pages: PDFPage[],
  tops: number[],
  pageH: number,
  toPdfY: (i: number, y: number) => number,
  item: Extract<LayoutItem, { kind: 'box' }>,
): Promise<void> {
  for (let i = 0; i < tops.length; i++) {
    const from = Math.max(item.y, tops[i]);
    const to = Math.min(item.y + item.h, i + 1 < tops.length ? tops[i + 1] : Infinity, tops[i] + pageH);
    if (to <= from) continue;
    pages[i].drawRectangle({
      x: item.x * PX_TO_PT,
      y: toPdfY(i, to),
      width: item.w * PX_TO_PT,
      height: (to - from) * PX_TO_PT,
      color: await rgbOf(item.colour),
    });
  }
}

/** A text line Helvetica cannot encode, as a PNG at twice its pixels; `w` its width in layout pixels. */
async function linePng(item: Extract<LayoutItem, { kind: 'text' }>): Promise<{ png: Buffer; w: number }> {
  const { createCanvas } = nativeCanvas();
  const ctx0 = createCanvas(1, 1).getContext('2d');
  ctx0.font = cssFont(item.font);
  const w = Math.max(1, Math.ceil(ctx0.measureText(item.text).width) + 2);
  const c = createCanvas(w * 2, item.h * 2);
  const ctx = c.getContext('2d');
  ctx.scale(2, 2);
  ctx.font = cssFont(item.font);
  ctx.fillStyle = item.colour;
  ctx.fillText(item.text, 0, baseline(0, item.h, item.font));
  return { png: await c.encode('png'), w };
}
