import { z } from 'zod';
import { BridgeError, invalidInput } from '../../errors';
import { errorBody } from '../http/errorMapper';
import { Hijack, type RouteServices } from '../http/routeTable';
import { GUIDE_TOPICS } from '../system/guide';
import { SERVER_VERSION } from '../../version';
import {
  BODY_BASE64_MAX_CHARS,
  DEFAULT_IMAGE_MAX_PX,
  DEFAULT_RESULT_BYTES,
  IMAGE_MAX_PX_RANGE,
  MAX_RESULT_BYTES,
  MIN_RESULT_BYTES,
} from './mcpBudget';
import { callRoute, toolError } from './routeCall';
import { callWithApproval } from './approvalCall';
import { brokerFor } from './mcpElicitation';

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

/** One stateless MCP exchange per POST /mcp (Streamable HTTP, JSON responses). */
export function mcpExchange(services: RouteServices, raw: Buffer, token: string): Hijack {
  let message: unknown;
  try {
    message = JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new BridgeError('INVALID_JSON', 400, `The MCP message is not valid JSON: ${(e as Error).message}`);
  }
  // Approvals asked through the client (mcpElicitation.ts): its answer to our question is taken here.
  const broker = brokerFor(services);
  const key = services.tokens.identify(token)?.tokenId ?? 'owner';
  if (broker.answer(key, message)) return new Hijack(async (_req, res) => void res.writeHead(202).end());
  broker.noteInitialize(key, message);
  // A tool call that may ask the person streams (SSE), so the question can go out before the answer.
  const mayAsk = broker.declaredBy(key) && (message as { method?: unknown })?.method === 'tools/call';
  return new Hijack(async (req, res) => {
    // Loaded on first use: the SDK (with ajv) is a large share of start-up time otherwise.
    const [{ McpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    const server = new McpServer({ name: 'study-bridge', version: SERVER_VERSION });
    // Tool hints follow the caller's token: a read token's study_call cannot change anything (the route
    // scopes refuse it), so clients may run it without asking; a write token's may delete.
    const readOnly = services.tokens.identify(token)?.scope === 'read';
    server.registerTool(
      'study_guide',
      {
        description: `The Study Bridge runtime guide (Markdown): auth, rules and the workflows as literal requests (the route table: GET /guide/routes). Read it first; topic (${GUIDE_TOPICS.join(', ')}) answers one workflow only.`,
        inputSchema: guideArgs,
        annotations: { title: 'Study Bridge guide', readOnlyHint: true, openWorldHint: false },
      },
      async ({ topic }) => {
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
    );
    server.registerTool(
      'study_call',
      {
        description: `Calls a Study Bridge route (see study_guide) on the user's study library: PDF books, study sets, cards, decks, bundles. Returns the route's JSON; images come back as image content (≤ ${DEFAULT_IMAGE_MAX_PX} px, imageMaxPx). Results over maxBytes (default ${DEFAULT_RESULT_BYTES}) are cut at a whole item and end with a note {truncated:true, next}: call study_call with next as the arguments for the rest (page text: the next page range; lists: a cursor).`,
        inputSchema: callArgs,
        annotations: {
          title: 'Study Bridge route',
          readOnlyHint: readOnly,
          destructiveHint: !readOnly,
          openWorldHint: false,
        },
      },
      async (args, extra) =>
        callWithApproval(services, token, args, {
          broker,
          key,
          send: (m, o) => transport.send(m, o),
          requestId: extra.requestId,
          signal: extra.signal,
        }),
    );
    // Adding a book needs write: a read token is not offered a tool it could never use.
    if (!readOnly) {
      server.registerTool(
        'study_upload',
        {
          description:
            'Adds a PDF on this machine to the library by path: the bridge reads the file (from the library or an import folder) and stores it exactly like the upload route, answering the same (bookmd5, created, addedToStudySet, extraction). Calling it confirms the upload.',
          inputSchema: uploadArgs,
          // The same file again answers alreadyPresent: adding is never destructive and repeats harmlessly.
          annotations: {
            title: 'Add a PDF by path',
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: false,
          },
        },
        async (args) =>
          callRoute(services, token, {
            method: 'POST',
            path: '/library/documents/import',
            body: { ...args, confirm: true },
          }),
      );
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !mayAsk });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  });
}

/**
 * GET /mcp. MCP clients open their server-to-client stream with a GET asking
 * for text/event-stream; a stateless server without that stream answers 405
 * (MCP Streamable HTTP transport), which clients take as "no stream" and go on
 * with POSTs. Given 501 instead, the MCP Inspector dropped the session's tools.
 * Any other GET keeps the contract's 501. Answered on the raw response because
 * the choice depends on the Accept header.
 */
export function mcpGetAnswer(): Hijack {
  return new Hijack(async (req, res) => {
    const wantsStream = /\btext\/event-stream\b/i.test(req.headers.accept ?? '');
    const err = wantsStream
      ? new BridgeError(
          'METHOD_NOT_ALLOWED',
          405,
          'This MCP server has no server-to-client stream (stateless Streamable HTTP): send every message with POST /mcp.',
          { allow: ['POST'] },
        )
      : new BridgeError(
          'NOT_IMPLEMENTED',
          501,
          'GET /mcp is not supported: use POST /mcp (Streamable HTTP, stateless).',
        );
    res.writeHead(err.status, {
      'Content-Type': 'application/json; charset=utf-8',
      ...(wantsStream ? { Allow: 'POST' } : {}),
    });
    res.end(JSON.stringify(errorBody(err)));
  });
}
