import { z } from 'zod';
import { defineRoute } from '../http/routeTable';

export const studySetRoutes = [
  defineRoute({
    method: 'GET',
    path: '/library/study-sets',
    summary: 'Lists study sets (never decks); query filters by title.',
    query: z.object({ query: z.string().max(200).optional() }),
    handler: async ({ query, services }) => {
      const studySets = services.studySets.list(query.query);
      return { studySets, count: studySets.length };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/library/study-sets',
    summary: 'Creates a study set with one root card bearing its title; verify isStudySet:true.',
    premium: true,
    confirm: 'body',
    body: z.object({ title: z.string().trim().min(1, 'title must not be empty').max(200) }),
    example: { body: { title: 'Linear algebra' } },
    handler: async ({ body, services }) => {
      const set = await services.studySets.create(body.title);
      return { ...set, created: true };
    },
  }),
];
