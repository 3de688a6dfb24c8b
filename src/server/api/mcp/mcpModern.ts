import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { RouteServices } from '../http/routeTable';
import { SERVER_VERSION } from '../../version';
import { bridgeTools, type BridgeTool } from './mcpTools';
import { askedCall } from './approvalInput';
import { reviewAppResource, reviewTools } from './reviewTools';

const importSdk = () => import('@modelcontextprotocol/server');
type Sdk = Awaited<ReturnType<typeof importSdk>>;
type McpServer = InstanceType<Sdk['McpServer']>;

/** The tool list only changes with the bridge's version, but it follows the token's scope: private to the caller. */
const TOOLS_LIST_TTL_MS = 5 * 60_000;

interface Channel {
  handler: ReturnType<Sdk['createMcpHandler']>;
}

// Loaded on first use, like the 2025 SDK: a large share of start-up time otherwise.
let sdk: ReturnType<typeof importSdk> | undefined;
const loadSdk = () => (sdk ??= importSdk());
const channels = new WeakMap<object, Promise<Channel>>();

/** A web Request carrying the Node request's method and headers (the body, already read, goes separately). */
function webRequest(req: IncomingMessage, body?: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const url = `http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`;
  return new Request(url, { method: req.method, headers, ...(body ? { body: new Uint8Array(body) } : {}) });
}

/**
 * Whether this POST /mcp speaks the 2026-07-28 generation: the SDK's own
 * classifier (a per-request `_meta` envelope, or a modern
 * MCP-Protocol-Version header), so the routing never disagrees with what the
 * modern handler then validates. Everything else keeps the 2025 handshake.
 */
export async function isModernRequest(req: IncomingMessage, message: unknown): Promise<boolean> {
  const { isLegacyRequest } = await loadSdk();
  return !(await isLegacyRequest(webRequest(req), message));
}

function register(server: McpServer, tool: BridgeTool<never>, run: (args: never, ctx: never) => Promise<unknown>) {
  server.registerTool(
    tool.name,
    {
      description: tool.description,
      inputSchema: z.object(tool.shape),
      annotations: tool.annotations,
      ...(tool.meta ? { _meta: tool.meta } : {}),
    },
    run as never,
  );
}

async function createChannel(services: RouteServices): Promise<Channel> {
  const { McpServer, createMcpHandler, createRequestStateCodec } = await loadSdk();
  // The state a retried call echoes names its approval; signed with a key that never leaves this
  // process and bound to the caller's token, so it can be neither forged nor replayed by another agent.
  const codec = createRequestStateCodec({
    key: randomBytes(32),
    bind: (ctx) => `${ctx.mcpReq.method}\0${(ctx.http?.authInfo as { clientId?: string } | undefined)?.clientId ?? ''}`,
  });
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const token = authInfo!.token;
      const server = new McpServer(
        { name: 'study-bridge', version: SERVER_VERSION },
        {
          capabilities: { tools: {}, resources: {} },
          cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
          requestState: { verify: codec.verify.bind(codec) },
        },
      );
      const { guide, call, upload } = bridgeTools(services, token);
      register(server, guide, guide.run!);
      register(server, call, (args: never, ctx: never) => askedCall(services, token, args, ctx, codec));
      if (upload) register(server, upload, upload.run!);
      const review = reviewTools(services, token);
      register(server, review.next, review.next.run!);
      if (review.grade) register(server, review.grade, review.grade.run!);
      const app = reviewAppResource;
      server.registerResource(app.name, app.uri, app.config, app.read);
      return server;
    },
    { legacy: 'reject' },
  );
  return { handler };
}

/** One 2026-07-28 exchange: stateless, validated by the SDK (header, `_meta`, version), written on the raw response. */
export async function serveModern(
  services: RouteServices,
  token: string,
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  message: unknown,
): Promise<void> {
  let channel = channels.get(services);
  if (!channel) channels.set(services, (channel = createChannel(services)));
  const { handler } = await channel;
  const clientId = services.tokens.identify(token)?.tokenId ?? 'owner';
  const answer = await handler.fetch(webRequest(req, raw), {
    authInfo: { token, clientId, scopes: [] },
    parsedBody: message,
  });
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(answer.status, headers);
  if (!answer.body) return void res.end();
  const reader = answer.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}
