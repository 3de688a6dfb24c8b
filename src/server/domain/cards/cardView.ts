import type { Store } from '../../ground/store/store';
import type { ExcerptRenderDeps } from './cardImages';
import { cardAndContent, excerptPart, occlusionOf, pictureRect, IMAGE_KINDS, type PartRow } from './cardImages';
import type { CardPicture, CardView } from './cardLayout';
import { NOTE_PALETTE_HEX } from './notePalette';
import { nativeCanvas } from '../../ground/pdf/nativeCanvas';

type Image = Awaited<ReturnType<typeof import('@napi-rs/canvas').loadImage>>;

/**
 * What GET /notes/{id}/render shows of a card, read from the store: the
 * content of a reference copy comes from its original, hashtags and colour
 * are the card's own. Stored images are decoded here for their size (no
 * drawing yet); an excerpt region's size is its rectangle in points.
 */
export async function readCardView(
  services: Pick<ExcerptRenderDeps, 'pageCache'> & { store: Store },
  noteid: string,
): Promise<CardView> {
  const { store } = services;
  const { card, content } = cardAndContent(store, noteid);
  const texts = store.all<{ idx: number; text: string; excerpt: number; kind: string }>(
    'SELECT idx, text, excerpt, kind FROM note_texts WHERE noteid = ? ORDER BY idx',
    [content.noteid],
  );
  const body = texts.find((t) => t.idx === 0);
  const pictures: CardPicture[] = [];
  const excerpt = excerptPart(store, content);
  if (excerpt?.region) {
    const r = await pictureRect(services, excerpt.region);
    pictures.push({ part: excerpt, width: r.width, height: r.height, scalable: true });
  }
  const media: CardView['media'] = [];
  const { loadImage } = nativeCanvas();
  for (const row of store.all<PartRow>(
    "SELECT * FROM note_parts WHERE noteid = ? AND kind <> 'excerpt_image' ORDER BY idx, content_id",
    [content.noteid],
  )) {
    if (!row.blob) continue;
    if (!IMAGE_KINDS.has(row.kind)) {
      media.push({ kind: row.kind, mimeType: row.mime_type });
      continue;
    }
    let image: Image;
    try {
      image = await loadImage(Buffer.from(row.blob));
    } catch {
      media.push({ kind: `${row.kind} (unreadable)`, mimeType: row.mime_type });
      continue;
    }
    pictures.push({
      part: {
        contentId: row.content_id,
        kind: row.kind,
        mimeType: row.mime_type,
        row,
        region: null,
        occlusion: occlusionOf(row.data),
      },
      width: image.width,
      height: image.height,
      scalable: false,
    });
  }
  const hashtags = store
    .all<{ path: string }>('SELECT path FROM note_hashtags WHERE noteid = ? ORDER BY lower(path)', [card.noteid])
    .map((h) => h.path);
  return {
    title: content.title,
    body: body ? { text: body.text, excerpt: body.excerpt === 1 } : null,
    pictures,
    media,
    comments: texts.filter((t) => t.idx > 0 && t.text.trim() !== '').map((t) => t.text),
    hashtags,
    colour: NOTE_PALETTE_HEX[card.color_index ?? -1] ?? '#C4DDF7',
  };
}
