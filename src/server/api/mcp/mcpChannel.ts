import { BridgeError } from '../../errors';
import { errorBody } from '../http/errorMapper';
import { Hijack, type RouteServices } from '../http/routeTable';
import { SERVER_VERSION } from '../../version';
import { callWithApproval } from './approvalCall';
import { brokerFor } from './mcpElicitation';
import { isModernRequest, serveModern } from './mcpModern';
import { bridgeTools } from './mcpTools';
import { reviewAppResource, reviewTools } from './reviewTools';

const toolConfig = <S>(tool: {
  description: string;
  shape: S;
  annotations: object;
  meta?: Record<string, unknown>;
}) => ({
  description: tool.description,
  inputSchema: tool.shape,
  annotations: tool.annotations,
  ...(tool.meta ? { _meta: tool.meta } : {}),
});

/**
 * One stateless MCP exchange per POST /mcp (Streamable HTTP). A 2026-07-28
 * request (per-request `_meta`, no handshake) is served by mcpModern.ts; the
 * 2025 generation, with its initialize handshake, by the 1.x SDK here, which
 * keeps asking the person over the call's own stream (mcpElicitation.ts).
 */
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
    if (await isModernRequest(req, message)) return serveModern(services, token, req, res, raw, message);
    // Loaded on first use: the SDK (with ajv) is a large share of start-up time otherwise.
    const [{ McpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    // logging: clients may set a level (logging/setLevel); this server sends no log messages.
    // resources: the review MCP App's page (reviewTools.ts).
    const server = new McpServer(
      { name: 'study-bridge', version: SERVER_VERSION },
      { capabilities: { tools: {}, resources: {}, logging: {} } },
    );
    const { guide, call, upload } = bridgeTools(services, token);
    server.registerTool(guide.name, toolConfig(guide), (args) => guide.run!(args as never));
    server.registerTool(call.name, toolConfig(call), async (args, extra) =>
      callWithApproval(services, token, args as never, {
        broker,
        key,
        send: (m, o) => transport.send(m, o),
        requestId: extra.requestId,
        signal: extra.signal,
      }),
    );
    if (upload) server.registerTool(upload.name, toolConfig(upload), (args) => upload.run!(args as never));
    const review = reviewTools(services, token);
    for (const tool of [review.next, review.grade]) {
      if (tool) server.registerTool(tool.name, toolConfig(tool), (args) => tool.run!(args as never));
    }
    const app = reviewAppResource;
    server.registerResource(app.name, app.uri, app.config, app.read);
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
