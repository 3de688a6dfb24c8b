import { z } from 'zod';
import { defineRoute } from '../http/routeTable';

export const searchRoutes = [
  defineRoute({
    method: 'GET',
    path: '/search',
    summary: 'Searches cards, study-set titles and document text (scope=all|notes|studysets|documents), ranked by relevance (bm25 over the full-text index); documents are found even in no set, each with its best matching pages (≤20, pagesTruncated). New writes are searchable at once. scanned counts the index rows examined per scope; truncated:true (truncatedScopes says where) means a window or the limit cut something: refine and search again.',
    query: z.object({
      q: z.string().trim().min(1, 'q must not be empty').max(200),
      scope: z.enum(['all', 'notes', 'studysets', 'documents']).default('all'),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
    example: { query: { q: 'eigenvalue' } },
    handler: async ({ query, services }) => services.search.search(query.q, query.scope, query.limit),
  }),
];
