import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BridgeError } from '../errors';
import { errorBody } from '../http/errorMapper';
import { refuseUnstorable } from '../http/storableText';
import { Hijack, type RouteServices } from '../http/routeTable';
import { SERVER_VERSION } from '../version';

const callArgs = {
  method: z.enum(['GET', 'POST']).describe('HTTP method of the bridge route'),
  path: z.string().min(1).describe('Route path under /bridge/v1, e.g. /library/study-sets or /documents/{bookmd5}/pages'),
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Query parameters'),
  body: z.record(z.string(), z.unknown()).optional().describe('JSON body for POST routes (confirm:true where the route needs it)'),
};

const PDF_EMBED_LIMIT = 8 * 1024 * 1024;

/**
 * study_call goes through the bridge's own HTTP surface (loopback, with the
 * caller's own token), so every guard, gate, scope and error of the route
 * table applies exactly as for an HTTP agent, and the actor is the caller.
 */
async function callRoute(services: RouteServices, token: string, args: { method: 'GET' | 'POST'; path: string; query?: Record<string, string | number | boolean>; body?: Record<string, unknown> }): Promise<CallToolResult> {
  // Checked here, not only by the route: a URL would turn a lone surrogate into U+FFFD on the way.
  try {
    refuseUnstorable(args, 'arguments');
  } catch (e) {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(e as BridgeError)) }] };
  }
  const path = args.path.startsWith('/') ? args.path : `/${args.path}`;
  if (/^\/mcp\b/.test(path)) return { isError: true, content: [{ type: 'text', text: 'study_call cannot call /mcp itself.' }] };
  const url = new URL(services.baseUrl() + path);
  for (const [k, v] of Object.entries(args.query ?? {})) url.searchParams.set(k, String(v));
  const res = await fetch(url, {
    method: args.method,
    headers: { Authorization: `Bearer ${token}`, ...(args.body ? { 'Content-Type': 'application/json' } : {}) },
    body: args.method === 'POST' ? JSON.stringify(args.body ?? {}) : undefined,
  });
  const type = res.headers.get('content-type') ?? '';
  const bytes = Buffer.from(await res.arrayBuffer());
  const isError = res.status >= 400;
  const mimeType = type.split(';')[0].trim();
  if (mimeType.startsWith('image/')) {
    return { isError, content: [{ type: 'image', data: bytes.toString('base64'), mimeType }] };
  }
  if (mimeType === 'application/json' || mimeType.startsWith('text/')) {
    return { isError, content: [{ type: 'text', text: bytes.toString('utf8') }] };
  }
  if (mimeType === 'application/pdf') {
    const note = `HTTP ${res.status}: a PDF of ${bytes.length} bytes from ${args.method} ${url.pathname}`;
    // Embedded as a resource up to a size an MCP client can hold in one message; larger ones are read over HTTP.
    if (bytes.length > PDF_EMBED_LIMIT) return { isError, content: [{ type: 'text', text: `${note}, too large to embed (over ${PDF_EMBED_LIMIT} bytes): read it over HTTP.` }] };
    return {
      isError,
      content: [
        { type: 'text', text: `${note}, embedded below as a resource.` },
        { type: 'resource', resource: { uri: `studybridge:${url.pathname}${url.search}`, mimeType, blob: bytes.toString('base64') } },
      ],
    };
  }
  return { isError, content: [{ type: 'text', text: `HTTP ${res.status}: ${bytes.length} bytes of ${type || 'binary data'} (read it over HTTP: ${args.method} ${url.pathname})` }] };
}

/** One stateless MCP exchange per POST /mcp (Streamable HTTP, JSON responses). */
export function mcpExchange(services: RouteServices, raw: Buffer, token: string): Hijack {
  let message: unknown;
  try {
    message = JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new BridgeError('INVALID_JSON', 400, `The MCP message is not valid JSON: ${(e as Error).message}`);
  }
  return new Hijack(async (req, res) => {
    // Loaded on first use: the SDK (with ajv) is a large share of start-up time otherwise.
    const [{ McpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    const server = new McpServer({ name: 'study-bridge', version: SERVER_VERSION });
    server.registerTool(
      'study_guide',
      { description: 'The Study Bridge runtime guide (Markdown): auth, conventions, workflows, pitfalls and the route table. Read it first.' },
      async () => ({ content: [{ type: 'text', text: services.guide.markdown }] }),
    );
    server.registerTool(
      'study_call',
      {
        description:
          "Calls a Study Bridge route (see study_guide) on the user's study library: PDF books, study sets, cards, decks, bundles. Returns the route's JSON; images come back as image content.",
        inputSchema: callArgs,
      },
      async (args) => callRoute(services, token, args),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
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
      ? new BridgeError('METHOD_NOT_ALLOWED', 405, 'This MCP server has no server-to-client stream (stateless Streamable HTTP): send every message with POST /mcp.', { allow: ['POST'] })
      : new BridgeError('NOT_IMPLEMENTED', 501, 'GET /mcp is not supported: use POST /mcp (Streamable HTTP, stateless).');
    res.writeHead(err.status, {
      'Content-Type': 'application/json; charset=utf-8',
      ...(wantsStream ? { Allow: 'POST' } : {}),
    });
    res.end(JSON.stringify(errorBody(err)));
  });
}
