/** Shared by the card-image API tests: a bridge with asymptote.pdf, an anchored excerpt card, and stored picture parts. */
import { randomUUID } from 'node:crypto';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';

/** A sentence of page 10 of asymptote.pdf, verbatim. */
export const VERBATIM =
  'By default, Asymptote attempts to center the figure on the page, assuming that the paper type is letter.';
export const EXCERPT_PAGE = 10;
export const UNKNOWN = '11111111-2222-4333-8444-555555555555';

type Image = Awaited<ReturnType<typeof import('@napi-rs/canvas').loadImage>>;

export interface CardImagesFixture {
  t: TestBridge;
  setId: string;
  rootId: string;
  book: string;
  digest(): string;
  create(body: Record<string, unknown>): Promise<any>;
  batchGet(noteId: string): Promise<any>;
  /** Inserts a stored part (made by bundles and the app; no route writes picture bytes). */
  addPart(noteid: string, part: { kind: string; mimeType: string; blob: Buffer; contentId?: string }): Promise<string>;
}

export async function cardImagesFixture(): Promise<CardImagesFixture> {
  const t = await startBridge();
  const set = await t.client.createStudySet('Asymptote pictures');
  const book = (await upload(t, 'asymptote.pdf')).bookmd5;
  await t.bridge.services.extraction.whenReady(book); // no background writes during the digests
  return {
    t,
    setId: set.topicid,
    rootId: set.rootNoteId!,
    book,
    digest: () => storeDigest(t.bridge.services.store),
    create: (body) =>
      t.client.call('POST /study-sets/{id}/notes', { params: { id: set.topicid }, body: { ...body, confirm: true } }),
    batchGet: async (noteId) =>
      (await t.client.call('POST /notes/batch-get', { body: { noteIds: [noteId] } })).notes[0],
    async addPart(noteid, part) {
      const contentId = part.contentId ?? `P${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      await t.bridge.services.store.write((tx) => {
        const idx =
          (tx.get<{ m: number | null }>('SELECT max(idx) AS m FROM note_parts WHERE noteid = ?', [noteid])?.m ?? -1) +
          1;
        tx.run('INSERT INTO note_parts(content_id, noteid, idx, kind, mime_type, blob) VALUES (?, ?, ?, ?, ?, ?)', [
          contentId,
          noteid,
          idx,
          part.kind,
          part.mimeType,
          new Uint8Array(part.blob),
        ]);
      });
      return contentId;
    },
  };
}

/** A w × h PNG: `draw` paints on it (transparent unless it fills). */
export async function makePng(w: number, h: number, draw: (ctx: any) => void): Promise<Buffer> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const c = createCanvas(w, h);
  draw(c.getContext('2d'));
  return c.encode('png');
}

export async function decode(
  png: Buffer,
): Promise<{ image: Image; width: number; height: number; rgba: Uint8ClampedArray }> {
  const { createCanvas, loadImage } = await import('@napi-rs/canvas');
  const image = await loadImage(png);
  const c = createCanvas(image.width, image.height);
  const ctx = c.getContext('2d');
  ctx.drawImage(image, 0, 0);
  return {
    image,
    width: image.width,
    height: image.height,
    rgba: ctx.getImageData(0, 0, image.width, image.height).data,
  };
}

/** Share of pixels darker than mid-grey (ink on the page). */
export function darkShare(rgba: Uint8ClampedArray): number {
  let dark = 0;
  for (let i = 0; i < rgba.length; i += 4)
    if (rgba[i] + rgba[i + 1] + rgba[i + 2] < 3 * 128 && rgba[i + 3] > 128) dark++;
  return dark / (rgba.length / 4);
}

/** The RGBA of one pixel. */
export const pixel = (d: { rgba: Uint8ClampedArray; width: number }, x: number, y: number) => {
  const i = (Math.floor(y) * d.width + Math.floor(x)) * 4;
  return [d.rgba[i], d.rgba[i + 1], d.rgba[i + 2], d.rgba[i + 3]];
};
