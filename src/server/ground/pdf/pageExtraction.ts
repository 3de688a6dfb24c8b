import { loadPdfJs, type PdfDocument } from './pdfjsLoader';
import type { PageData } from './pdfTypes';
import { isReadableText, itemsToText, positionItems, type RawTextItem } from './pageText';
import { pageGlyphEdges } from './glyphEdges';
import { layoutBlocks } from './layoutBlocks';
import { renderPageImage } from './pageRender';
import type { PageOcr } from './pageOcr';

async function paintsImage(doc: PdfDocument, pageNo: number): Promise<boolean> {
  const pdfjs = await loadPdfJs();
  const ops = pdfjs.OPS;
  const imageOps = new Set<number>([
    ops.paintImageXObject,
    ops.paintInlineImageXObject,
    ops.paintImageMaskXObject,
    ops.paintImageXObjectRepeat,
    ops.paintInlineImageXObjectGroup,
  ]);
  const page = await doc.getPage(pageNo);
  try {
    const list = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
    return list.fnArray.some((fn) => imageOps.has(fn));
  } finally {
    page.cleanup();
  }
}

/** Render scale for OCR: 2.5 × 72 = 180 dpi. */
export const OCR_SCALE = 2.5;

/**
 * Reads one page: the text layer with positions, its layout blocks and, when
 * the text layer is missing or unreadable and `ocr` is given, OCR instead.
 * `blocks: false` leaves `blocks` empty, for callers that derive them from
 * the items later (the library does, for the few pages that ask).
 */
export async function extractPage(
  doc: PdfDocument,
  pageNo: number,
  ocr?: PageOcr,
  opts: { blocks?: boolean } = {},
): Promise<PageData> {
  const withBlocks = opts.blocks ?? true;
  const page = await doc.getPage(pageNo);
  const viewport = page.getViewport({ scale: 1 });
  let data: PageData;
  try {
    const content = await page.getTextContent();
    const mono = new Set<string>();
    for (const [name, style] of Object.entries(content.styles ?? {})) {
      if ((style as { fontFamily?: string }).fontFamily === 'monospace') mono.add(name);
    }
    const raw = content.items as RawTextItem[];
    const edges = raw.some((it) => it.str?.trim()) ? await pageGlyphEdges(await loadPdfJs(), page, raw) : [];
    const items = positionItems(raw, viewport.transform, mono, {
      edges,
      styles: content.styles,
    });
    const text = itemsToText(items);
    data = {
      page: pageNo,
      width: Math.round(viewport.width * 100) / 100,
      height: Math.round(viewport.height * 100) / 100,
      text,
      items,
      blocks: withBlocks ? layoutBlocks(items, viewport) : [],
      ocr: false,
    };
  } finally {
    page.cleanup();
  }
  if (isReadableText(data.text) || !ocr) return data;
  // Only a page that paints an image can hold text a scan made; blank and
  // vector-only pages are left as they are (no OCR engine start for them).
  if (!(await paintsImage(doc, pageNo))) return data;
  try {
    const { bytes: png } = await renderPageImage(doc, pageNo, { scale: OCR_SCALE });
    const result = await ocr.recognize(png, OCR_SCALE);
    const text = itemsToText(result.items);
    if (!isReadableText(text)) return { ...data, unreadable: true };
    return {
      ...data,
      text,
      items: result.items,
      blocks: withBlocks ? layoutBlocks(result.items, data) : [],
      ocr: true,
    };
  } catch {
    return { ...data, unreadable: true };
  }
}
