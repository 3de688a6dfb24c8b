import { z } from 'zod';
import { defineRoute } from '../http/routeTable';

export const searchRoutes = [
  defineRoute({
    method: 'GET',
    path: '/search',
    summary: 'Searches cards, study-set titles and document text (scope=all|notes|studysets|documents); documents are found even in no set. New writes are searchable at once; truncated:true means refine and search again.',
    query: z.object({
      q: z.string().trim().min(1, 'q must not be empty').max(200),
      scope: z.enum(['all', 'notes', 'studysets', 'documents']).default('all'),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
    example: { query: { q: 'eigenvalue' } },
    handler: async ({ query, services }) => services.search.search(query.q, query.scope, query.limit),
  }),
];
