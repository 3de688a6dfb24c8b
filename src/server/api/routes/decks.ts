import { z } from 'zod';
import { defineRoute } from '../http/routeTable';
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
