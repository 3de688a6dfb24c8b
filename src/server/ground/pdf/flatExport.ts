import { writeFile, rm } from 'node:fs/promises';
import { renameReplacing } from '../store/renameReplacing';
import { FILE_MODE, mkdirPrivateAsync } from '../store/privateFiles';
import * as path from 'node:path';
import { pdfLib } from './pdfLib';
import type { Rect } from './pdfTypes';

/** A rectangle drawn on an exported page; `rect` in page points, top-left origin (as everywhere). */
export interface Highlight {
  page: number;
  rect: Rect;
  /** RGB 0..1; default a yellow marker. */
  color?: [number, number, number];
  opacity?: number;
}

/**
 * Builds a flat PDF: the chosen pages of the original (PDF order, 1-based),
 * each with its highlights drawn as translucent rectangles in the page
 * content (no annotations), written atomically to `outPath`.
 */
export async function buildFlatExport(
  source: Uint8Array,
  pages: number[],
  highlights: Highlight[],
): Promise<Uint8Array> {
  const { PDFDocument, rgb } = pdfLib();
  const src = await PDFDocument.load(source, { ignoreEncryption: true, updateMetadata: false });
  const out = await PDFDocument.create();
  const count = src.getPageCount();
  const wanted = pages.filter((p) => Number.isInteger(p) && p >= 1 && p <= count);
  const copied = await out.copyPages(
    src,
    wanted.map((p) => p - 1),
  );
  const byPage = new Map<number, Highlight[]>();
  for (const h of highlights) byPage.set(h.page, [...(byPage.get(h.page) ?? []), h]);
  copied.forEach((page, i) => {
    out.addPage(page);
    const box = page.getCropBox();
    for (const h of byPage.get(wanted[i]) ?? []) {
      const [r, g, b] = h.color ?? [1, 0.86, 0.2];
      page.drawRectangle({
        x: box.x + h.rect.x,
        y: box.y + box.height - h.rect.y - h.rect.h,
        width: h.rect.w,
        height: h.rect.h,
        color: rgb(r, g, b),
        opacity: h.opacity ?? 0.35,
        borderWidth: 0,
      });
    }
  });
  out.setProducer('Study Bridge');
  return out.save({ useObjectStreams: true });
}

export async function writeFlatExport(
  source: Uint8Array,
  pages: number[],
  highlights: Highlight[],
  outPath: string,
): Promise<{ pageCount: number; bytes: number }> {
  const bytes = await buildFlatExport(source, pages, highlights);
  await mkdirPrivateAsync(path.dirname(outPath));
  const tmp = `${outPath}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, bytes, { mode: FILE_MODE });
    await renameReplacing(tmp, outPath); // a PDF viewer on Windows may hold the old file
  } catch (e) {
    await rm(tmp, { force: true }); // a full disk leaves no half-written export
    throw e;
  }
  const check = await pdfLib().PDFDocument.load(bytes, { updateMetadata: false });
  return { pageCount: check.getPageCount(), bytes: bytes.byteLength };
}
