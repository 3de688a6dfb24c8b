import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';

const MAX_KEYS = 64;

const uiStateResponse = z.object({ state: z.record(z.string(), z.unknown()) });
const uiStateApplyResponse = z.object({
  queued: z.boolean(),
  keys: z.record(
    z.string(),
    z.object({ status: z.enum(['accepted', 'conditional', 'rejected']), reason: z.string().optional() }),
  ),
  topicid: z.string().nullable(),
  appliesAfterMs: z.number().int(),
  reconcileAfterSeconds: z.number(),
});

/** Routes: the UI-state bookmark (read, apply). */
export const uiStateRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ui-state',
    summary:
      'The whole UI bookmark {state:{…}} (the open set as topicid, stored keys, live values of the UI); may be edited and sent back; values wrapped in _jsonvalueType come back unchanged.',
    response: uiStateResponse,
    handler: async ({ services }) => services.uiState.read(),
  }),
  defineRoute({
    method: 'POST',
    path: '/ui-state/apply',
    summary:
      'Applies a differential patch of the bookmark (missing keys stay). Answers queued:true at once with each key accepted, conditional (skipped or without effect here; reason) or rejected (play, doclayerid "new", unknown keys); topicid is filled with the open set, rejected when none is open. Effective within about 1.5 s: read GET /ui-state after 2 s.',
    premium: true,
    body: z.object({
      state: z
        .record(z.string(), z.unknown())
        .refine((s) => Object.keys(s).length > 0, 'state must hold at least one key')
        .refine((s) => Object.keys(s).length <= MAX_KEYS, `state holds at most ${MAX_KEYS} keys`),
    }),
    response: uiStateApplyResponse,
    example: { body: { state: { immersive: false } } },
    handler: async ({ body, services }) => services.uiState.apply(body.state),
  }),
] satisfies RouteDecl[];
