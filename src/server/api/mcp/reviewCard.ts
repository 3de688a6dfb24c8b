import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DeckReviews } from '../../domain/decks/deckReviews';
import type { ReviewRating } from '../../domain/decks/deckScheduling';
import type { RouteServices } from '../http/routeTable';

/**
 * The card the review tools answer: the first card due in a deck, with both
 * sides, the four grades' next intervals and its pictures, read through the
 * bridge's own routes with the caller's token (GET /decks/{id}/due, GET
 * /notes/{id}/content/…), the calls the VS Code review panel makes, so the
 * caller's scope and every route's refusals hold. One answer serves two kinds
 * of host: text and image content for any client, `structuredContent` for the
 * review MCP App (ui://study-bridge/review), which finds its pictures in
 * `content` by the indexes `images` gives.
 */

type DueCard = ReturnType<DeckReviews['due']>['cards'][number];

export interface ReviewAppCard {
  cardNoteId: string;
  state: DueCard['state'];
  /** html: the bridge's sanitised card HTML (domain/decks/cardHtml.ts), which the App draws as it is. */
  question: { kind: DueCard['question']['kind']; text: string; html: string };
  answer: DueCard['answer'];
  nextIntervals: Record<ReviewRating, string>;
  /** false: the card it reads is gone; the stored texts show, without pictures. */
  sourceAlive: boolean;
}

export interface ReviewAppState {
  deck: { deckId: string; title: string };
  /** Cards due now, this one included. */
  dueCount: number;
  /** When the next card is due, if none is now (null: the deck has no cards). */
  nextDueAt: string | null;
  card: ReviewAppCard | null;
  /** Where the pictures are in the result's `content`; `named`: those the card HTML names, by media name. */
  images: { question?: number; answer?: number; named?: Record<string, number> };
  /** study_review_grade: the grade just stored (the route's proof fields). */
  graded?: { cardNoteId: string; rating: ReviewRating; due: string; scheduledDays: number; reviewLogId: string };
}

/** Pictures are drawn at most this wide or tall, as the review panel draws them. */
const MAX_EDGE = 1200;

interface Answer {
  status: number;
  type: string;
  bytes: Buffer;
}

/** One route of the bridge, over loopback with the caller's token (as study_call calls it). */
export async function askRoute(
  services: RouteServices,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  opts: { query?: Record<string, string | number>; body?: unknown } = {},
): Promise<Answer> {
  const url = new URL(services.baseUrl() + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(opts.body ? { 'Content-Type': 'application/json' } : {}) },
    body: opts.body ? JSON.stringify(opts.body) : undefined,
  });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

/** A refused route call as the tool's error: the route's own `{error:{code,message,…}}` body. */
export const routeRefusal = (a: Answer): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: a.bytes.toString('utf8') }],
});

const seg = encodeURIComponent;

/** The pictures the card HTML names (Anki media), read as the panel reads them. */
async function namedPictures(services: RouteServices, token: string, card: DueCard) {
  const read = async ({ name, noteId, contentId }: DueCard['pictures'][number]) => {
    const a = await askRoute(services, token, 'GET', `/notes/${seg(noteId)}/content/${seg(contentId)}`, {
      query: { maxEdge: MAX_EDGE },
    });
    const ok = a.status === 200 && a.type.startsWith('image/');
    return [
      name,
      ok ? { data: a.bytes.toString('base64'), mimeType: a.type.split(';')[0].trim() } : undefined,
    ] as const;
  };
  const pics = card.sourceAlive ? await Promise.all(card.pictures.map(read)) : [];
  return pics.flatMap(([name, pic]) => (pic ? [[name, pic] as const] : []));
}

/** A card's pictures as the review panel shows them (views/reviewMedia.ts reads the same routes). */
async function pictures(services: RouteServices, token: string, card: DueCard) {
  if (!card.sourceAlive) return {};
  const png = async (contentId: string, layers: 'composite' | 'base') => {
    const a = await askRoute(services, token, 'GET', `/notes/${seg(card.resolvedNoteId)}/content/${seg(contentId)}`, {
      query: { maxEdge: MAX_EDGE, layers },
    });
    return a.status === 200 && a.type.startsWith('image/')
      ? { data: a.bytes.toString('base64'), mimeType: a.type.split(';')[0].trim() }
      : undefined;
  };
  // An image-occlusion question: the part with its masks; its answer, the part without them.
  if (card.question.kind === 'content_part' && card.question.contentId) {
    const [question, answer] = await Promise.all([
      png(card.question.contentId, 'composite'),
      png(card.question.contentId, 'base'),
    ]);
    return { question, answer };
  }
  // An excerpt's answer: its region of the page (a card without an anchored region has none).
  return card.answer.excerpt ? { answer: await png(`excerpt-${card.resolvedNoteId}`, 'composite') } : {};
}

/** The text a host without MCP Apps shows (and the agent reads): the same card, the answer marked as such. */
function cardText(state: ReviewAppState): string {
  const { deck, card } = state;
  if (!card) {
    const next = state.nextDueAt ? `the next card is due ${state.nextDueAt}` : 'the deck has no cards';
    return `Nothing is due now in "${deck.title}" (deckId ${deck.deckId}): ${next}.`;
  }
  const a = card.answer;
  const lines = [
    `Deck "${deck.title}": ${state.dueCount} due now; this card is ${card.state}.`,
    `Question: ${card.question.kind === 'content_part' ? '(the picture below, masked)' : card.question.text}`,
    '',
    'Answer (show it only after the person has answered):',
    ...(a.title && a.title !== card.question.text ? [a.title] : []),
    ...(a.body ? [a.excerpt ? `Excerpt${a.page ? ` of p. ${a.page}` : ''}: ${a.body}` : a.body] : []),
    ...a.comments,
    ...(state.images.answer !== undefined ? ['(The answer picture follows.)'] : []),
    ...(card.sourceAlive ? [] : ['(The card this one reads is gone: the stored text shows.)']),
    '',
    `Let the person grade it: study_review_grade {"deckId":"${deck.deckId}","cardNoteId":"${card.cardNoteId}","rating":"good"}`,
    `Next intervals: ${(['again', 'hard', 'good', 'easy'] as const).map((r) => `${r} ${card.nextIntervals[r]}`).join(' · ')}.`,
  ];
  return lines.join('\n');
}

/** The first card due in `deckId` as a tool result (text, pictures, structuredContent); a refused read answers its error. */
export async function dueCardResult(
  services: RouteServices,
  token: string,
  deckId: string,
  graded?: ReviewAppState['graded'],
): Promise<CallToolResult> {
  const due = await askRoute(services, token, 'GET', `/decks/${seg(deckId)}/due`, { query: { limit: 1 } });
  if (due.status !== 200) return routeRefusal(due);
  const list = JSON.parse(due.bytes.toString('utf8')) as ReturnType<DeckReviews['due']>;
  const first = list.cards[0];
  const state: ReviewAppState = {
    deck: { deckId, title: list.title },
    dueCount: list.dueCount,
    nextDueAt: list.nextDueAt,
    card: first
      ? {
          cardNoteId: first.cardNoteId,
          state: first.state,
          question: { kind: first.question.kind, text: first.question.text, html: first.question.html },
          answer: first.answer,
          nextIntervals: first.nextIntervals,
          sourceAlive: first.sourceAlive,
        }
      : null,
    images: {},
    ...(graded ? { graded } : {}),
  };
  const pics = first ? await pictures(services, token, first) : {};
  const images: CallToolResult['content'] = [];
  for (const side of ['question', 'answer'] as const) {
    const pic = pics[side];
    if (!pic) continue;
    state.images[side] = images.length + 1;
    images.push({ type: 'image', data: pic.data, mimeType: pic.mimeType });
  }
  for (const [name, pic] of first ? await namedPictures(services, token, first) : []) {
    (state.images.named ??= {})[name] = images.length + 1;
    images.push({ type: 'image', data: pic.data, mimeType: pic.mimeType });
  }
  const lead = graded
    ? `Stored: ${graded.rating} (reviewLogId ${graded.reviewLogId}); next due ${graded.due}.\n\n`
    : '';
  return {
    content: [{ type: 'text', text: lead + cardText(state) }, ...images],
    structuredContent: state as unknown as Record<string, unknown>,
  };
}
