import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import type { Store } from '../../ground/store/store';
import { eventStream } from '../http/eventStream';

/** Longest a long poll may hold its request (under common proxy and client idle limits). */
export const MAX_CHANGE_WAIT_MS = 25_000;

/**
 * Resolves with the store revision once it differs from `since` (a commit, or
 * a revision that went backwards: another library behind the same address),
 * or when `waitMs` passes, or when the caller goes away.
 */
function waitForChange(store: Store, since: number, waitMs: number, signal: AbortSignal): Promise<number> {
  if (store.revision !== since || waitMs === 0) return Promise.resolve(store.revision);
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener('abort', finish);
      resolve(store.revision);
    };
    const timer = setTimeout(finish, waitMs);
    const unsubscribe = store.onCommit(finish);
    signal.addEventListener('abort', finish, { once: true });
  });
}

export const changesResponse = z.object({ revision: z.number().int(), changed: z.boolean() });

/** Routes: the change feed views follow (beyond the contract; read-only, so free). */
export const libraryChangeRoutes = [
  defineRoute({
    method: 'GET',
    path: '/library/changes',
    summary:
      "Long poll for library writes (anyone's): answers at once when revision differs from since, else when a write commits or waitMs (0..25000) passes → {revision, changed}. Pass the answer's revision as the next since.",
    query: z.object({
      since: z.coerce.number().int().min(0),
      waitMs: z.coerce.number().int().min(0).max(MAX_CHANGE_WAIT_MS).default(0),
    }),
    response: changesResponse,
    example: { query: { since: '0', waitMs: '0' } },
    handler: async ({ query, services, signal }) => {
      const revision = await waitForChange(
        services.store,
        query.since,
        query.waitMs,
        AbortSignal.any([signal, services.closing]),
      );
      return { revision, changed: revision !== query.since };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/events',
    summary:
      'Server-sent events (text/event-stream) of library writes: `event:` card|set|deck|document|bundle, `data:` {revision, ids}, `id:` the revision (as in GET /library/changes). Resume with the Last-Event-ID header (or ?lastEventId=); `event: reset` means re-read everything; `: ping` every 15 s; `event: open` {revision} once caught up; `event: revision` when only bookkeeping was written.',
    query: z.object({ lastEventId: z.string().max(20).optional() }),
    replyType: 'text/event-stream',
    handler: async ({ services }) => {
      const { eventHeartbeatMs, eventBufferBytes } = services.config.limits;
      return eventStream(services.events, {
        heartbeatMs: eventHeartbeatMs,
        maxBufferBytes: eventBufferBytes,
        closing: services.closing,
      });
    },
  }),
] satisfies RouteDecl[];
