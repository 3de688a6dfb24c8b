import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { batchGet } from '../cards/batchGet';
import { noteIdList } from './noteParams';

const EX_NOTE = '00000000-0000-4000-8000-000000000001';

/** Routes: batch-get and focus. */
export const noteReadRoutes: RouteDecl[] = [
  defineRoute({
    method: 'POST',
    path: '/notes/batch-get',
    summary: 'Reads up to 200 cards: sparse texts[] (0 body, 1..N comments), parts[] in visual order, metadata, hashtags, hashtagPaths, sourceAnchor, links; unknown ids in notFound.',
    body: z.object({ noteIds: noteIdList(200) }),
    example: { body: { noteIds: [EX_NOTE] } },
    handler: async ({ body, services }) => batchGet(services.store, body.noteIds),
  }),
];
