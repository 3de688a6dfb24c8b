import { BridgeError } from '../../errors';
import type { Store } from '../../ground/store/store';
import {
  cardAndContent,
  findContent,
  IMAGE_KINDS,
  renderRegion,
  type CardContent,
  type ExcerptRenderDeps,
  type OcclusionMask,
} from './cardImages';
import { sourceFingerprint } from './occlusionFingerprint';
import { nativeCanvas } from '../../ground/pdf/nativeCanvas';

type Ctx2d = import('@napi-rs/canvas').SKRSContext2D;

const MASK_COLOURS = ['#F5A623', '#4A90E2', '#7ED321', '#BD10E0', '#D0021B', '#50E3C2'];

/** Occlusion masks as filled boxes over a w × h picture (rects normalised, top-left). */
export function drawMasks(
  ctx: Ctx2d,
  masks: readonly OcclusionMask[],
  x0: number,
  y0: number,
  w: number,
  h: number,
): void {
  for (const m of masks) {
    const colour = MASK_COLOURS[(m.group ?? 0) % MASK_COLOURS.length];
    const r = {
      x: x0 + m.rect.x * w,
      y: y0 + m.rect.y * h,
      w: Math.max(1, m.rect.width * w),
      h: Math.max(1, m.rect.height * h),
    };
    ctx.fillStyle = colour;
    ctx.fillRect(r.x, r.y, r.w, r.h);
    ctx.strokeStyle = '#333333';
    ctx.lineWidth = 1;
    ctx.strokeRect(r.x + 0.5, r.y + 0.5, Math.max(0, r.w - 1), Math.max(0, r.h - 1));
  }
}

/**
 * A picture part as PNG at most `maxEdge` on its longer side: an excerpt
 * region rendered from its PDF at exactly that size (vector), a stored image
 * or ink scaled down (never up) onto white. `masks` draws the occlusion boxes.
 */
export async function partPicture(
  services: ExcerptRenderDeps,
  part: CardContent,
  maxEdge: number,
  masks: boolean,
): Promise<{ png: Buffer; width: number; height: number }> {
  const { createCanvas, loadImage } = nativeCanvas();
  let base: { png?: Buffer; image?: Awaited<ReturnType<typeof loadImage>>; width: number; height: number };
  if (part.region) {
    base = await renderRegion(services, part.region, maxEdge);
  } else {
    if (!part.row?.blob)
      throw new BridgeError('CONTENT_NOT_FOUND', 404, `Part ${part.contentId} holds no image bytes.`, {
        contentId: part.contentId,
      });
    const image = await loadImage(Buffer.from(part.row.blob));
    const s = Math.min(1, maxEdge / Math.max(image.width, image.height));
    base = {
      image,
      width: Math.max(1, Math.round(image.width * s)),
      height: Math.max(1, Math.round(image.height * s)),
    };
  }
  const list = masks ? (part.occlusion?.masks ?? []) : [];
  if (base.png && !list.length) return { png: base.png, width: base.width, height: base.height };
  const canvas = createCanvas(base.width, base.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, base.width, base.height);
  ctx.drawImage(base.image ?? (await loadImage(base.png!)), 0, 0, base.width, base.height);
  drawMasks(ctx, list, 0, 0, base.width, base.height);
  return { png: await canvas.encode('png'), width: base.width, height: base.height };
}

/** A card part's bytes; `picture` for image parts (the route sends its fields as headers). */
export interface NoteContentBytes {
  bytes: Buffer;
  mimeType: string;
  picture?: { sourceFingerprint: string; maskCount: number };
}

/**
 * A card part's bytes (GET /notes/{id}/content/{contentId}): a picture part as
 * composite PNG (`layers=base` leaves the occlusion masks out), audio, video
 * and other stored bytes raw with their MIME type. A picture's source
 * fingerprint comes along so an agent can start an occlusion dry-run from it.
 */
export async function noteContent(
  services: ExcerptRenderDeps & { store: Store },
  noteid: string,
  contentId: string,
  opts: { maxEdge: number; layers: 'composite' | 'base' },
): Promise<NoteContentBytes> {
  const { card, content } = cardAndContent(services.store, noteid);
  const part = findContent(services.store, content, contentId, card.noteid);
  if (!IMAGE_KINDS.has(part.kind)) {
    if (!part.row?.blob) {
      throw new BridgeError(
        'CONTENT_NOT_FOUND',
        404,
        `Part ${contentId} of card ${noteid} is ${part.kind} with no stored bytes; its text is in batch-get texts[].`,
        { noteid, contentId, kind: part.kind },
      );
    }
    return { bytes: Buffer.from(part.row.blob), mimeType: part.mimeType ?? 'application/octet-stream' };
  }
  const pic = await partPicture(services, part, opts.maxEdge, opts.layers === 'composite');
  return {
    bytes: pic.png,
    mimeType: 'image/png',
    picture: { sourceFingerprint: sourceFingerprint(part), maskCount: part.occlusion?.masks.length ?? 0 },
  };
}
