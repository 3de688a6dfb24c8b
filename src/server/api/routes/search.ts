import { z } from 'zod';
import { QUERY_LIMITS } from '../../ground/text/searchTerms';
import { defineRoute } from '../http/routeTable';

const scope = z.enum(['all', 'notes', 'studysets', 'documents']);
export const searchResponse = z.object({
  q: z.string(),
  scope,
  notes: z.array(
    z.object({
      noteid: z.string(),
      topicid: z.string(),
      studySetTitle: z.string().nullable(),
      title: z.string(),
      snippet: z.string(),
      score: z.number(),
    }),
  ),
  studySets: z.array(z.object({ topicid: z.string(), title: z.string(), isStudySet: z.boolean() })),
  documents: z.array(
    z.object({
      bookmd5: z.string(),
      filename: z.string(),
      folder: z.string(),
      pages: z.array(z.number().int()),
      matchingPages: z.number().int(),
      pagesTruncated: z.boolean(),
      snippet: z.string().optional(),
      score: z.number(),
    }),
  ),
  scanned: z.object({
    notes: z.number().int(),
    studySets: z.number().int(),
    documents: z.number().int(),
    pages: z.number().int(),
  }),
  truncated: z.boolean(),
  truncatedScopes: z.array(z.string()),
});

export const searchRoutes = [
  defineRoute({
    method: 'GET',
    path: '/search',
    summary:
      'Searches cards, study-set titles and document text (scope=all|notes|studysets|documents), ranked by relevance (bm25 over the full-text index); documents are found even in no set, each with its best matching pages (≤20, pagesTruncated). New writes are searchable at once. scanned counts the index rows examined per scope; truncated:true (truncatedScopes says where) means a window or the limit cut something: refine and search again.',
    query: z.object({
      q: z.string().trim().min(1, 'q must not be empty').max(QUERY_LIMITS.chars),
      scope: scope.default('all'),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
    response: searchResponse,
    example: { query: { q: 'eigenvalue' } },
    handler: async ({ query, services }) => services.search.search(query.q, query.scope, query.limit),
  }),
];
