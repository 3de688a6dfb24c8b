import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';

const cursorSequence = z.coerce
  .number({ error: 'afterSequence must be an integer ≥ 0' })
  .int('afterSequence must be an integer ≥ 0')
  .min(0, 'afterSequence must be an integer ≥ 0');
const pageLimit = (dflt: number) =>
  z.coerce
    .number({ error: 'limit must be an integer 1..200' })
    .int('limit must be an integer 1..200')
    .min(1, 'limit must be 1..200')
    .max(200, 'limit must be 1..200')
    .default(dflt);

const syncEvent = z.object({
  sequence: z.number().int(),
  kind: z.string(),
  bookmd5: z.string().optional(),
  path: z.string().optional(),
  at: z.string(),
  details: z.record(z.string(), z.unknown()),
});
const statusResponse = z.object({
  errorCount: z.number().int(),
  suspended: z.boolean(),
  suspensionNeedsAttention: z.boolean(),
  suspensionErrorCount: z.number().int(),
  lastSequence: z.number().int(),
  watching: z.boolean(),
  lanes: z.array(z.string()),
  documents: z.object({
    total: z.number().int(),
    observed: z.number().int(),
    possibleMismatch: z.number().int(),
    missingFile: z.number().int(),
    recheckRunning: z.boolean(),
    runningOperationId: z.string().optional(),
    lastRecheck: z
      .object({
        operationId: z.unknown(),
        startedAt: z.string(),
        finished: z.boolean(),
        finishedAt: z.string().optional(),
        result: z.record(z.string(), z.unknown()).optional(),
      })
      .nullable(),
  }),
});
const eventsResponse = z.object({
  events: z.array(syncEvent),
  lastSequence: z.number().int(),
  hasMore: z.boolean(),
  historyTruncated: z.boolean(),
  cursorAdvancedPastGap: z.boolean(),
  cursorAhead: z.boolean(),
});
const recheckResponse = z.object({
  accepted: z.boolean(),
  operationId: z.string(),
  startSequence: z.number().int(),
  alreadyRunning: z.boolean(),
  lanes: z.object({ database: z.boolean(), documents: z.boolean() }),
});
const inventoryResponse = z.object({
  observeOnly: z.boolean(),
  authoritative: z.boolean(),
  items: z.array(
    z.object({
      bookmd5: z.string(),
      path: z.string(),
      state: z.enum(['observed', 'possible_mismatch', 'missing_file']),
      size: z.number().int().nullable(),
      recordedSize: z.number().int(),
    }),
  ),
  count: z.number().int(),
  nextCursor: z.string().nullable(),
});

/** Routes: legacy sync diagnostics (status, events, recheck, inventory). Token only, no premium. */
export const legacySyncRoutes = [
  defineRoute({
    method: 'GET',
    path: '/sync/legacy/status',
    summary:
      'Snapshot of the channel that reconciles the library database with its files: errorCount (historic), suspended, suspensionErrorCount (since the last recheck), lastSequence, watching, documents (observed / possibleMismatch / missingFile, last recheck).',
    response: statusResponse,
    handler: async ({ services }) => services.legacySync.status(),
  }),
  defineRoute({
    method: 'GET',
    path: '/sync/legacy/events',
    summary:
      'The sync event log after a cursor (afterSequence, limit 1..200, default 50): file_removed / file_added / file_changed behind the bridge, recheck_* and file_verified / file_mismatch / file_missing. Continue with lastSequence while hasMore; historyTruncated, cursorAdvancedPastGap, cursorAhead (reset the cursor).',
    query: z.object({ afterSequence: cursorSequence.default(0), limit: pageLimit(50) }),
    response: eventsResponse,
    example: { query: { afterSequence: '0', limit: '50' } },
    handler: async ({ query, services }) => services.legacySync.events(query.afterSequence, query.limit),
  }),
  defineRoute({
    method: 'POST',
    path: '/sync/legacy/recheck',
    summary:
      'Re-verifies the library in the background (documents: MD5 of every file against its bookmd5; database: rows without files, files without rows); joins a running recheck. Answers accepted, operationId, startSequence: read events after startSequence.',
    body: z.object({ database: z.boolean().default(true), documents: z.boolean().default(true) }),
    response: recheckResponse,
    example: { body: { database: true, documents: true } },
    handler: async ({ body, services }) => services.legacySync.startRecheck(body),
  }),
  defineRoute({
    method: 'POST',
    path: '/sync/legacy/inventory',
    scope: 'read', // reads only: a read token may call it
    summary:
      'Observe-only page of the library (cursor, limit 1..200, default 50): items {bookmd5, path, state observed|possible_mismatch|missing_file, size}; nextCursor null at the end. Changes nothing.',
    body: z.object({
      cursor: z
        .string()
        .regex(/^[0-9a-f]{32}$/, 'cursor must be a nextCursor of a previous answer (a bookmd5)')
        .optional(),
      limit: z
        .number({ error: 'limit must be an integer 1..200' })
        .int('limit must be an integer 1..200')
        .min(1, 'limit must be 1..200')
        .max(200, 'limit must be 1..200')
        .default(50),
    }),
    response: inventoryResponse,
    example: { body: {} },
    handler: async ({ body, services }) => services.legacySync.inventory(body.cursor, body.limit),
  }),
] satisfies RouteDecl[];
