import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { batchGet } from '../../domain/cards/batchGet';
import { focusNote } from '../../domain/cards/studySetOpen';
import { topicId } from './idParams';
import { noteId, noteIdList } from './noteParams';
import { card } from './cardShapes';

export const batchGetResponse = z.object({
  notes: z.array(card),
  notFound: z.array(z.string()),
  count: z.number().int(),
});
export const focusResponse = z.object({ accepted: z.boolean(), noteid: z.string(), topicid: z.string() });

const EX_NOTE = '00000000-0000-4000-8000-000000000001';

/** Routes: batch-get and focus. */
export const noteReadRoutes = [
  defineRoute({
    method: 'POST',
    path: '/notes/batch-get',
    scope: 'read', // reads only: a read token may call it
    summary:
      'Reads up to 200 cards: sparse texts[] (0 body, 1..N comments), parts[] in visual order, metadata, hashtags, hashtagPaths, sourceAnchor, links; unknown ids in notFound.',
    body: z.object({ noteIds: noteIdList(200) }),
    response: batchGetResponse,
    example: { body: { noteIds: [EX_NOTE] } },
    handler: async ({ body, services }) => batchGet(services.store, body.noteIds),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/focus',
    summary:
      'Shows the card in the UI (its set opened); topicid picks the set when a reference copy shows it in several. Asynchronous: GET /context.focusedNote reports it.',
    params: z.object({ id: noteId }),
    body: z.object({ topicid: topicId.optional() }),
    response: focusResponse,
    example: { params: { id: EX_NOTE }, body: {} },
    handler: async ({ params, body, services }) => focusNote(services, params.id, body.topicid),
  }),
] satisfies RouteDecl[];
