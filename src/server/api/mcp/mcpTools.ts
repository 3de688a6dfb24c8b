import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { invalidInput } from '../../errors';
import type { RouteServices } from '../http/routeTable';
import { GUIDE_TOPICS } from '../system/guide';
import {
  BODY_BASE64_MAX_CHARS,
  DEFAULT_IMAGE_MAX_PX,
  DEFAULT_RESULT_BYTES,
  IMAGE_MAX_PX_RANGE,
  MAX_RESULT_BYTES,
  MIN_RESULT_BYTES,
} from './mcpBudget';
import { callRoute, toolError, type RouteCallArgs } from './routeCall';

const callArgs = {
  method: z.enum(['GET', 'POST']).describe('HTTP method of the bridge route'),
  path: z
    .string()
    .min(1)
    .describe('Route path under /bridge/v1, e.g. /library/study-sets or /documents/{bookmd5}/pages'),
  query: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe('Query parameters'),
  body: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON body for POST routes (confirm:true where the route needs it)'),
  bodyBase64: z
    .string()
    .optional()
    .describe(
      `Raw bytes (base64) for routes that take a file's bytes (rawBody in /capabilities: upload), up to ${BODY_BASE64_MAX_CHARS} characters; for a file on this machine use study_upload`,
    ),
  // Ranges are checked by the tool (a coded error, nothing run), so the schema only types them.
  maxBytes: z
    .number()
    .optional()
    .describe(
      `Text budget of this result in bytes, ${MIN_RESULT_BYTES}–${MAX_RESULT_BYTES} (default ${DEFAULT_RESULT_BYTES}). A larger answer is cut at a whole item; a second text block says truncated:true and gives next`,
    ),
  imageMaxPx: z
    .number()
    .optional()
    .describe(
      `Long edge of image results in pixels, ${IMAGE_MAX_PX_RANGE[0]}–${IMAGE_MAX_PX_RANGE[1]} (default ${DEFAULT_IMAGE_MAX_PX}); larger images are scaled down`,
    ),
  cursor: z
    .object({ field: z.string().optional(), from: z.number(), held: z.string().optional() })
    .optional()
    .describe("Only as a previous result's next gave it: where a cut answer continues"),
};

const uploadArgs = {
  path: z
    .string()
    .min(1)
    .describe(
      'Absolute path (or ~/…) of a PDF on this machine, in the library or an import folder (default ~/Documents, ~/Downloads)',
    ),
  filename: z.string().optional().describe('Name in the library (default: the file name)'),
  topicid: z.string().optional().describe('Study set to add the book to'),
  folder: z.string().optional().describe('Library folder ("" = root)'),
};

const guideArgs = {
  topic: z
    .string()
    .optional()
    .describe(`Only this workflow and its routes: ${GUIDE_TOPICS.join(', ')}. Omit for the whole guide.`),
};

/** One tool as both protocol generations register it (the SDKs differ only in how they take it). */
export interface BridgeTool<A = Record<string, unknown>> {
  name: string;
  description: string;
  shape: z.ZodRawShape;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: boolean;
  };
  /** The tool's `_meta` in tools/list (the review tools name their MCP App there). */
  meta?: Record<string, unknown>;
  run?: (args: A) => Promise<CallToolResult>;
}

/**
 * The tools a token is offered: study_guide, study_call (its run depends on
 * how the generation asks the person, so each channel supplies it) and, for
 * write tokens, study_upload. Hints follow the token: a read token's
 * study_call cannot change anything (the route scopes refuse it), so clients
 * may run it without asking; a write token's may delete.
 */
export function bridgeTools(services: RouteServices, token: string) {
  const readOnly = services.tokens.identify(token)?.scope === 'read';
  const guide: BridgeTool<{ topic?: string }> = {
    name: 'study_guide',
    description: `The Study Bridge runtime guide (Markdown): auth, rules and the workflows as literal requests (the route table: GET /guide/routes). Read it first; topic (${GUIDE_TOPICS.join(', ')}) answers one workflow only.`,
    shape: guideArgs,
    annotations: { title: 'Study Bridge guide', readOnlyHint: true, openWorldHint: false },
    run: async ({ topic }) => {
      if (topic === undefined) return { content: [{ type: 'text', text: services.guide.markdown }] };
      const text = services.guide.topics[topic];
      if (text === undefined)
        return toolError(
          invalidInput(
            `No guide topic "${topic}": one of ${Object.keys(services.guide.topics).join(', ')}.`,
            { field: 'topic', topics: Object.keys(services.guide.topics) },
            'UNKNOWN_TOPIC',
          ),
        );
      return { content: [{ type: 'text', text }] };
    },
  };
  const call: BridgeTool<RouteCallArgs> = {
    name: 'study_call',
    description: `Calls a Study Bridge route (see study_guide) on the user's study library: PDF books, study sets, cards, decks, bundles. Returns the route's JSON; images come back as image content (≤ ${DEFAULT_IMAGE_MAX_PX} px, imageMaxPx). Results over maxBytes (default ${DEFAULT_RESULT_BYTES}) are cut at a whole item and end with a note {truncated:true, next}: call study_call with next as the arguments for the rest (page text: the next page range; lists: a cursor).`,
    shape: callArgs,
    annotations: {
      title: 'Study Bridge route',
      readOnlyHint: readOnly,
      destructiveHint: !readOnly,
      openWorldHint: false,
    },
  };
  // Adding a book needs write: a read token is not offered a tool it could never use.
  const upload: BridgeTool<Record<string, unknown>> | undefined = readOnly
    ? undefined
    : {
        name: 'study_upload',
        description:
          'Adds a PDF on this machine to the library by path: the bridge reads the file (from the library or an import folder) and stores it exactly like the upload route, answering the same (bookmd5, created, addedToStudySet, extraction). Calling it confirms the upload.',
        shape: uploadArgs,
        // The same file again answers alreadyPresent: adding is never destructive and repeats harmlessly.
        annotations: {
          title: 'Add a PDF by path',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        run: async (args) =>
          callRoute(services, token, {
            method: 'POST',
            path: '/library/documents/import',
            body: { ...args, confirm: true },
          }),
      };
  return { guide, call, upload };
}
