import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { DeckCards } from '../decks/deckCards';
import type { BridgeServices } from '../services';
import { EXAMPLE_UUID, topicId, uuidParam } from './idParams';
import { noteId } from './noteParams';

/** Routes: review cards of decks (FSRS) and deck open. */

const deckCards = (s: BridgeServices) => new DeckCards(s.store, s.decks);

const deckParams = z.object({ id: topicId });
const cardParams = z.object({ id: topicId, cardId: uuidParam('cardId') });

const newCard = z
  .object({
    sourceNoteId: noteId,
    question: z.string().trim().min(1, 'question must not be empty').max(4000).optional(),
    questionContentId: z.string().trim().min(1).max(200).optional(),
    title: z.string().trim().min(1, 'title must not be empty').max(1000).optional(),
  })
  .refine((c) => c.question === undefined || c.questionContentId === undefined, {
    message: 'give at most one of question (custom text) and questionContentId (a content part); neither = automatic (title as question)',
    path: ['questionContentId'],
  });

const addBody = z.object({
  cards: z.array(newCard).min(1, 'cards must hold at least one card').max(50, 'at most 50 cards per call; split the batch'),
});

export const deckCardRoutes: RouteDecl[] = [
  defineRoute({
    method: 'GET',
    path: '/decks/{id}/cards',
    summary:
      "The deck's review cards by due date: sourceNoteId, resolvedNoteId, sourceAlive (false = source deleted or hidden, back empty), questionMode, FSRS due/state/reps/lapses, nextIntervals; dueCount; ?due=1 keeps cards due now.",
    params: deckParams,
    query: z.object({ due: z.enum(['0', '1', 'true', 'false']).optional() }),
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, query, services }) => deckCards(services).list(params.id, { dueOnly: query.due === '1' || query.due === 'true' }),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/cards',
    summary:
      'Adds up to 50 review cards: sourceNoteId plus at most one of question (custom text, {{cloze}} marks the hidden answer) or questionContentId (a part of the card); neither = automatic. Adding a source again updates and reschedules it (updatedExisting). True dry-run: wouldAdd.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: deckParams,
    body: addBody,
    example: { params: { id: EXAMPLE_UUID }, body: { cards: [{ sourceNoteId: EXAMPLE_UUID, question: 'The derivative of x² is {{cloze}}' }] } },
    preview: async ({ params, body, services }) => deckCards(services).previewAdd(params.id, body.cards),
    handler: async ({ params, body, services, actor }) => deckCards(services).add(params.id, body.cards, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/cards/{cardId}/review',
    summary: 'Records one review (rating again|hard|good|easy, reviewedAt default now): FSRS sets the next due date; answers due, state, scheduledDays, reps, lapses, previousDue.',
    premium: true,
    confirm: 'body',
    params: cardParams,
    body: z.object({ rating: z.enum(['again', 'hard', 'good', 'easy']), reviewedAt: z.iso.datetime({ offset: true }).optional() }),
    example: { params: { id: EXAMPLE_UUID, cardId: EXAMPLE_UUID }, body: { rating: 'good' } },
    handler: async ({ params, body, services, actor }) =>
      deckCards(services).review(params.id, params.cardId, body.rating, body.reviewedAt ? new Date(body.reviewedAt) : undefined, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/open',
    summary: 'Opens the deck in the UI (asynchronous: accepted now; GET /context then shows studySet.isDeck:true). Empty body.',
    params: deckParams,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => {
      const deck = services.decks.get(params.id);
      await services.ui.open({ topicid: deck.deckId, title: deck.title, isDeck: true });
      return { accepted: true, deckId: deck.deckId };
    },
  }),
];
