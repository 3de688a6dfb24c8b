import { z } from 'zod';
import { defineRoute, Reply, type RouteDecl } from '../http/routeTable';
import { BRIDGE_API_VERSION } from '../../version';
import { checkBundle, submitBundle } from '../../domain/bundles/bundleSubmit';
import {
  bundleCheckResponse,
  bundleDiscardResponse,
  bundleFocusResponse,
  bundleListResponse,
  bundleReceiptResponse,
  prepareResponse,
  prepareShape,
  resultOptions,
} from './bundleShapes';
import { EXAMPLE_UUID, uuidParam } from './idParams';
import { describeReplaceImport, previousImport } from '../../domain/approvals/approvalSummaries';
import { RESULT_LIMIT_BYTES } from '../../domain/bundles/resultFile';

const EX_MD5 = '0123456789abcdef0123456789abcdef';
const bundleParams = z.object({ id: uuidParam('bundle id') });

/** Routes: bundles (prepare, list, files, focus, discard, submit, check). */
export const bundleRoutes = [
  defineRoute({
    method: 'POST',
    path: '/bundles/prepare',
    summary:
      'Prepares a bundle of ≤ 60 actual pages (segments in PDF order, merged and sorted): preset book-breakdown|source-structure|exam-general|dictionary, anchorMode page_text|block, cardStyle.defaultFillIndex -1..2; async:true (required above 10 pages) answers 202 {jobId, bundleId, bundlePath, state:"preparing", pagesTotal}. One prepare at a time: 429 PREPARE_BUSY (runningJob, retryAfterSeconds).',
    // Loose: unknown fields pass through so the 202 answer can list them in ignoredFields too.
    body: z.looseObject(prepareShape),
    example: {
      body: {
        topicid: EXAMPLE_UUID,
        bookmd5: EX_MD5,
        segments: [{ startPage: 1, endPage: 3 }],
        preset: 'book-breakdown',
        anchorMode: 'page_text',
      },
    },
    // The 200 and the 202 body alike (the 202 is written as a Reply to set its status).
    response: prepareResponse,
    handler: async ({ body, services }) => {
      const r = await services.bundlePrepare.prepare(body);
      // The service types its bodies loosely (Record): the API tests check them against the schema.
      if (r.state === 'prepared') return r as z.input<typeof prepareResponse>;
      // Still preparing: 202, the job runs on.
      const ignoredFields = Object.keys(body).filter((k) => !(k in prepareShape));
      const json = JSON.stringify({
        bridgeApiVersion: BRIDGE_API_VERSION,
        ...r,
        ...(ignoredFields.length ? { ignoredFields } : {}),
      });
      return new Reply(json, 'application/json; charset=utf-8', 202);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/bundles',
    summary:
      'Lists bundles: title (prepare title or default), documentTitle (library file name, null once deleted), preset, anchorMode, segments, pagesTotal; state preparing|prepared|imported|failed; version and rootNoteId only when prepared or imported, progress {pagesDone, pagesTotal} only while preparing, error when failed. origin=bridge, since=<ISO or epoch ms> (preparing ones always listed). Poll about every 15 s.',
    query: z.object({ origin: z.enum(['bridge']).optional(), since: z.string().max(40).optional() }),
    response: bundleListResponse,
    handler: async ({ query, services }) => services.bundles.list(query),
  }),
  defineRoute({
    method: 'GET',
    path: '/bundles/{id}/files',
    summary:
      "Lists a bundle's files; path=<relative path> returns one file raw (confined to the folder; ../ or absolute → 422). 409 BUNDLE_PREPARING while the folder is being written.",
    params: bundleParams,
    query: z.object({ path: z.string().max(1000).optional() }),
    example: { params: { id: EXAMPLE_UUID } },
    // Two forms: the list (bundleFilesResponse, wrapped) and, with path=, the file itself raw. The test-side
    // response check cannot tell a raw manifest.json from a drifted list, so the route declares the raw type.
    replyType: 'application/json; charset=utf-8',
    handler: async ({ params, query, services }) => {
      const r = services.bundles.files(params.id, query.path);
      if ('list' in r) return r.list;
      const type = r.name.endsWith('.json')
        ? 'application/json; charset=utf-8'
        : r.name.endsWith('.md')
          ? 'text/markdown; charset=utf-8'
          : 'application/octet-stream';
      return new Reply(r.file, type);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/bundles/{id}/focus',
    summary:
      "Shows the bundle's pages (and its imported cards) in the app; asynchronous: read GET /context afterwards.",
    params: bundleParams,
    example: { params: { id: EXAMPLE_UUID } },
    response: bundleFocusResponse,
    handler: async ({ params, services }) => services.bundles.focus(params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/bundles/{id}/discard',
    summary:
      'Deletes the bundle folder; idempotent; a preparing job is cancelled (cancelledJob) and the next prepare waits for its checkpoint (429). Imported cards stay.',
    params: bundleParams,
    example: { params: { id: EXAMPLE_UUID } },
    response: bundleDiscardResponse,
    handler: async ({ params, services }) => services.bundles.discard(params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/bundles/{id}/submit',
    destructive: {
      when: {
        says: 'when it replaces an earlier import of the bundle',
        test: ({ params, services }) => previousImport(services.store, params.id) !== undefined,
      },
      describe: ({ params, services }) => describeReplaceImport(services.store, params.id),
    },
    summary:
      'Imports result.md (or resultMarkdown) as a card tree, or replaces the previous import; a snapshot first (preImportSnapshotId). Commits at once: test with /check first. Receipt: cardsCreated (every card written, as check predicted); check parsed.headings = importedCards and excerptsTotal = excerptsAnchored. 409 SUBMIT_IN_FLIGHT: do not retry, read GET /bundles.',
    premium: true,
    params: bundleParams,
    body: z.object({ ...resultOptions, targetParentNoteId: uuidParam('targetParentNoteId').optional() }),
    jsonLimitBytes: RESULT_LIMIT_BYTES,
    example: { params: { id: EXAMPLE_UUID }, body: { excerptMode: 'child' } },
    response: bundleReceiptResponse,
    handler: async ({ params, body, services, actor }) => submitBundle(services.bundles, params.id, body, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/bundles/{id}/check',
    scope: 'read', // reads only: a read token may call it
    summary:
      'Parses and anchors result.md (or resultMarkdown) exactly as submit would, writing nothing: the would-be card tree, cardsCreated (every card submit would write, excerpt child cards included), each excerpt anchored (page, rect) or not (reason), problems with line numbers.',
    params: bundleParams,
    body: z.object(resultOptions),
    jsonLimitBytes: RESULT_LIMIT_BYTES,
    example: { params: { id: EXAMPLE_UUID } },
    response: bundleCheckResponse,
    handler: async ({ params, body, services }) => checkBundle(services.bundles, params.id, body.resultMarkdown, body),
  }),
] satisfies RouteDecl[];
