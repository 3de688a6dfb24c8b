import type { PdfDocument } from './pdfjsLoader';
import type { Rect } from './pdfTypes';
import { nativeCanvas } from './nativeCanvas';

export type ImageFormat = 'png' | 'webp';

/** WebP quality of a page picture: text stays crisp at 2 pixels a point, at a quarter to a third of the PNG. */
const WEBP_QUALITY = 85;

export interface RenderOptions {
  /** Points per pixel scale (1 = 72 dpi). */
  scale: number;
  /** Optional region in page points (top-left origin); default the whole page. */
  region?: Rect;
  /** Default PNG. */
  format?: ImageFormat;
}

interface NodeCanvas {
  width: number;
  height: number;
  encode(format: 'png'): Promise<Buffer>;
  encode(format: 'webp', quality: number): Promise<Buffer>;
  toBuffer(mime: 'image/png'): Buffer;
}

interface CanvasAndContext {
  canvas: NodeCanvas;
  context: unknown;
}

interface CanvasFactory {
  create(width: number, height: number): CanvasAndContext;
  destroy(cc: CanvasAndContext): void;
}

/** Renders a page (or a region of it) on white and returns its PNG (or WebP) bytes. */
export async function renderPageImage(
  doc: PdfDocument,
  pageNo: number,
  opts: RenderOptions,
): Promise<{ bytes: Buffer; width: number; height: number }> {
  nativeCanvas(); // pdf.js draws on it: 503 RENDERER_UNAVAILABLE where it does not load
  const page = await doc.getPage(pageNo);
  try {
    const full = page.getViewport({ scale: opts.scale });
    const r = opts.region;
    const width = Math.max(1, Math.round((r ? r.w : full.width / opts.scale) * opts.scale));
    const height = Math.max(1, Math.round((r ? r.h : full.height / opts.scale) * opts.scale));
    const viewport = r
      ? page.getViewport({ scale: opts.scale, offsetX: -r.x * opts.scale, offsetY: -r.y * opts.scale })
      : full;
    const factory = (doc as unknown as { canvasFactory: CanvasFactory }).canvasFactory;
    const cc = factory.create(width, height);
    const ctx = cc.context as { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void };
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    await page.render({
      canvasContext: cc.context as never,
      canvas: cc.canvas as never,
      viewport,
      background: 'rgb(255,255,255)',
    }).promise;
    const bytes = opts.format === 'webp' ? await cc.canvas.encode('webp', WEBP_QUALITY) : await cc.canvas.encode('png');
    factory.destroy(cc);
    return { bytes, width, height };
  } finally {
    page.cleanup();
  }
}
