import type { BridgeClient } from '../client/bridgeClient';
import type { DueCard } from '../client/reviewApi';
import type { ReviewMedia } from '../webviews/review/protocol';

/** Pictures are drawn at most this wide or tall (the panel scales them down to its width). */
const MAX_EDGE = 1200;

/**
 * What a review card shows besides text, read from the bridge like any client:
 * - an excerpt card's answer: its page region (GET /notes/{id}/content/excerpt-<id>), and where it is in the book;
 * - an image-occlusion question: the part with its masks; its answer: the same part without them (layers=base).
 * - the pictures its card HTML names (Anki media: an image part of the card or its note), by name.
 * A card whose source is gone has none: the panel says so and shows the stored text.
 */
export async function reviewMedia(client: BridgeClient, card: DueCard): Promise<ReviewMedia> {
  if (!card.sourceAlive) return {};
  const pictures = await namedPictures(client, card);
  return { ...(await sideMedia(client, card)), ...(pictures ? { pictures } : {}) };
}

/** The pictures the card HTML names by Anki media name, as data: URLs by name. */
async function namedPictures(client: BridgeClient, card: DueCard): Promise<Record<string, string> | undefined> {
  if (!card.pictures?.length) return undefined;
  const out: Record<string, string> = {};
  for (const p of card.pictures) {
    const res = await client.raw(
      'GET',
      `/notes/${encodeURIComponent(p.noteId)}/content/${encodeURIComponent(p.contentId)}`,
      { query: { maxEdge: MAX_EDGE } },
    );
    const type = res.headers.get('content-type')?.split(';')[0].trim();
    if (res.status === 200 && type?.startsWith('image/'))
      out[p.name] = `data:${type};base64,${res.bytes.toString('base64')}`;
  }
  return out;
}

async function sideMedia(client: BridgeClient, card: DueCard): Promise<ReviewMedia> {
  const id = card.resolvedNoteId;
  const png = async (contentId: string, layers: 'composite' | 'base'): Promise<string | undefined> => {
    const res = await client.raw('GET', `/notes/${encodeURIComponent(id)}/content/${encodeURIComponent(contentId)}`, {
      query: { maxEdge: MAX_EDGE, layers },
    });
    return res.status === 200 && res.headers.get('content-type')?.startsWith('image/')
      ? `data:image/png;base64,${res.bytes.toString('base64')}`
      : undefined;
  };
  if (card.question.kind === 'content_part' && card.question.contentId) {
    const [questionImage, answerImage] = await Promise.all([
      png(card.question.contentId, 'composite'),
      png(card.question.contentId, 'base'),
    ]);
    return { questionImage, answerImage };
  }
  if (!card.answer.excerpt) return {};
  const [note] = (await client.cards.batchGet([id])).notes;
  const anchor = note?.sourceAnchor;
  const source =
    anchor?.bookmd5 && anchor.page
      ? { bookmd5: anchor.bookmd5, page: anchor.page, noteid: id, topicid: note.topicid }
      : undefined;
  return { answerImage: source ? await png(`excerpt-${id}`, 'composite') : undefined, source };
}
