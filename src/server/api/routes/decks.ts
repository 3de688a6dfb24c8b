import { z } from 'zod';
import { defineRoute } from '../http/routeTable';
import { deckOverview } from '../../domain/decks/deckStats';
import { EXAMPLE_UUID, topicId } from './idParams';
import { titleFilter, topicTitle } from './topicFields';

export const deckSummary = z.object({
  deckId: z.string(),
  title: z.string(),
  isDeck: z.literal(true),
  cardCount: z.number().int(),
  dueCount: z.number().int(),
  newCount: z.number().int(),
  nextDueAt: z.string().nullable().describe('When the next card not due yet comes due; null when none waits'),
  lastModifiedAt: z.string(),
  createdAt: z.string(),
});
const count = z.number().int();
const byState = { new: count, learning: count, review: count, relearning: count };
export const deckOverviewResponse = deckSummary.extend({
  now: z.string(),
  counts: z
    .object({ ...byState, suspended: count, buried: count, total: count })
    .describe('Every card by FSRS state; suspended and buried (still buried now) apart'),
  due: z
    .object({ ...byState, total: count })
    .describe("Cards due now by state, before /due's daily limits; total = dueCount"),
});
export const deckListResponse = z.object({ decks: z.array(deckSummary), count: z.number().int() });
export const deckCreateResponse = deckSummary.extend({ created: z.boolean() });

export const deckRoutes = [
  defineRoute({
    method: 'GET',
    path: '/decks',
    summary:
      'Lists review decks: deckId, title, cardCount (review cards only), dueCount (due now), newCount (never reviewed), lastModifiedAt; query filters by title.',
    query: titleFilter,
    response: deckListResponse,
    handler: async ({ query, services }) => {
      const decks = services.decks.list(query.query);
      return { decks, count: decks.length };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/decks/{id}',
    summary:
      'One review deck: cardCount, counts by state (new, learning, review, relearning, suspended, buried), due (cards due now by state, before daily limits), dueCount, newCount, nextDueAt (when the next card not due now comes due).',
    params: z.object({ id: topicId }),
    response: deckOverviewResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => deckOverview(services.decks, services.store, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks',
    summary: 'Creates a review deck; verify isDeck:true. Deck ids and study-set ids are not interchangeable.',
    premium: true,
    confirm: 'body',
    body: z.object({ title: topicTitle }),
    response: deckCreateResponse,
    example: { body: { title: 'Exam week' } },
    handler: async ({ body, services }) => ({ ...(await services.decks.create(body.title)), created: true }),
  }),
];
