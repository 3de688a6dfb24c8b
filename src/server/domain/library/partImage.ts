import { invalidInput } from '../../errors';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import type { DocumentCatalogue } from './documentCatalogue';
import type { PageReader } from './pageReader';
import { nativeCanvas } from '../../ground/pdf/nativeCanvas';

/** What rendering a part reads. */
export interface PartImageDeps {
  documents: DocumentCatalogue;
  pages: Pick<PageReader, 'pageSize'>;
  pool: Pick<ExtractionPool, 'render'>;
}

/**
 * Composite image of a page part as PNG: the page region under the part
 * (rect normalised 0..1) rendered so its longer edge is `maxEdge`, with the
 * stored ink image drawn over it.
 */
export async function partImagePng(
  deps: PartImageDeps,
  id: string,
  page: number,
  part: { rect: string | null; image: Uint8Array | null },
  maxEdge: number,
): Promise<Buffer> {
  const row = deps.documents.get(id);
  const size = (await deps.pages.pageSize(id, page)) ?? { width: 612, height: 792 };
  let rect = { x: 0, y: 0, w: size.width, h: size.height };
  if (part.rect) {
    const r = JSON.parse(part.rect) as { x: number; y: number; width: number; height: number };
    rect = {
      x: r.x * size.width,
      y: r.y * size.height,
      w: Math.max(1, r.width * size.width),
      h: Math.max(1, r.height * size.height),
    };
  }
  const scale = maxEdge / Math.max(rect.w, rect.h);
  if (rect.w * scale * rect.h * scale > 36e6)
    throw invalidInput('The image would exceed 36 million pixels.', undefined, 'RENDER_TOO_LARGE');
  const base = await deps.pool.render(deps.documents.source(row), page, scale, rect);
  if (!part.image) return base.png;
  const { createCanvas, loadImage } = nativeCanvas();
  const canvas = createCanvas(base.width, base.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(await loadImage(base.png), 0, 0);
  ctx.drawImage(await loadImage(Buffer.from(part.image)), 0, 0, base.width, base.height);
  return canvas.encode('png');
}
