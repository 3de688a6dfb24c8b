import { z } from 'zod';
import { defineRoute } from '../http/routeTable';
import { titleFilter, topicTitle } from './topicFields';

export const deckRoutes = [
  defineRoute({
    method: 'GET',
    path: '/decks',
    summary: 'Lists review decks: deckId, title, cardCount (review cards only), dueCount (due now), newCount (never reviewed), lastModifiedAt; query filters by title.',
    query: titleFilter,
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
    example: { body: { title: 'Exam week' } },
    handler: async ({ body, services }) => ({ ...(await services.decks.create(body.title)), created: true }),
  }),
];
