import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { exportPrint, previewPrint } from '../../domain/mindmap/mindMapPrint';
import { DEFAULT_DENSITY, PRINT_MODES, planSchema } from '../../domain/mindmap/printPlan';
import { EXAMPLE_UUID, topicId, uuidParam } from './idParams';

const setParams = z.object({ id: topicId });
const exportResponse = z.object({
  exported: z.boolean(),
  topicid: z.string(),
  path: z.string(),
  folder: z.string(),
  fileName: z.string(),
  pageCount: z.number().int(),
  bytes: z.number().int(),
  planFingerprint: z.string(),
});

/** Routes: mind-map print (preview, export). Free, no confirm (reference: from 0.49). */
export const mindMapPrintRoutes = [
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/mind-map-print/preview',
    scope: 'read', // reads only: a read token may call it
    summary:
      "Plans the pagination of the set's card tree (or of the branch under rootNoteId) and writes nothing: mode keepStructure (whole branches per page, big ones sliced, small siblings merged) | classic (the map cut into tiles) | cardFlow (cards as boxes); densityValue 0..1 (denser = more cards per page). Answers the plan: pageCountEstimate, pages[{kind, sliceIndex, sliceCount, visibleNoteIds, visibleDepth}], exportOptions, treeFingerprint, planFingerprint.",
    params: setParams,
    body: z.object({
      mode: z.enum(PRINT_MODES, { error: `mode must be one of ${PRINT_MODES.join(', ')}` }),
      densityValue: z
        .number({ error: 'densityValue must be a number 0..1' })
        .min(0, 'densityValue must be 0..1')
        .max(1, 'densityValue must be 0..1')
        .default(DEFAULT_DENSITY),
      rootNoteId: uuidParam('rootNoteId').optional(),
    }),
    response: planSchema,
    example: { params: { id: EXAMPLE_UUID }, body: { mode: 'keepStructure', densityValue: 0.5 } },
    handler: async ({ params, body, services }) =>
      previewPrint(services, params.id, body.mode, body.densityValue, body.rootNoteId),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/mind-map-print/export',
    summary:
      'Draws a plan from preview, unchanged (never re-planned), as a PDF into <exportFolder>/MindMapExports/<fileName>.pdf (never overwrites). The cards changed since the plan → 409 PLAN_STALE; an edited plan → 422 PLAN_FINGERPRINT_MISMATCH; another export running → 429 EXPORT_BUSY (shared with document export). Answers path, pageCount, bytes.',
    params: setParams,
    jsonLimitBytes: 8 * 1024 * 1024,
    body: z.object({
      plan: planSchema,
      fileName: z.string().min(1).max(200).optional(),
    }),
    response: exportResponse,
    example: {
      params: { id: EXAMPLE_UUID },
      body: {
        plan: {
          schema: 'study-bridge.mindMapPrintPlan.v0',
          topicid: EXAMPLE_UUID,
          rootNoteId: EXAMPLE_UUID,
          mode: 'keepStructure',
          densityValue: 0.5,
          cardCount: 1,
          pageCountEstimate: 1,
          pages: [
            {
              kind: 'singleCard',
              sliceIndex: 0,
              sliceCount: 1,
              anchorNoteId: EXAMPLE_UUID,
              visibleNoteIds: [EXAMPLE_UUID],
              visibleDepth: 0,
            },
          ],
          exportOptions: { pageSize: 'A4', orientation: 'portrait', cardsPerPage: 33, drawConnectors: true },
          treeFingerprint: '0'.repeat(64),
          planFingerprint: '0'.repeat(64),
        },
        fileName: 'linear-algebra-map',
      },
    },
    handler: async ({ params, body, services }) => exportPrint(services, params.id, body.plan, body.fileName),
  }),
] satisfies RouteDecl[];
