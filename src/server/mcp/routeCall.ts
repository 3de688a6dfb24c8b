import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BridgeError, invalidInput } from '../errors';
import { errorBody } from '../http/errorMapper';
import { refuseUnstorable } from '../http/storableText';
import type { RouteServices } from '../http/routeTable';
import { BODY_BASE64_MAX_CHARS, PDF_EMBED_LIMIT } from './mcpBudget';

export interface RouteCallArgs {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
  bodyBase64?: string;
}

export const toolError = (e: BridgeError): CallToolResult => ({ isError: true, content: [{ type: 'text', text: JSON.stringify(errorBody(e)) }] });

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The request body: JSON, or the decoded bytes of `bodyBase64` for routes that take a file's bytes. */
function requestBody(args: RouteCallArgs): { body?: string | Buffer; type?: string } {
  if (args.bodyBase64 !== undefined) {
    if (args.body) throw invalidInput('Send either body (JSON) or bodyBase64 (raw bytes), not both.', { fields: ['body', 'bodyBase64'] });
    if (args.method !== 'POST') throw invalidInput('bodyBase64 is for POST routes that take raw bytes (upload).', { field: 'bodyBase64' });
    if (args.bodyBase64.length > BODY_BASE64_MAX_CHARS) {
      throw new BridgeError(
        'MCP_BODY_TOO_LARGE',
        413,
        `bodyBase64 is ${args.bodyBase64.length} characters, over the MCP budget of ${BODY_BASE64_MAX_CHARS}: use the study_upload tool with the file's path instead. Nothing was stored.`,
        { limitChars: BODY_BASE64_MAX_CHARS, mcpTool: 'study_upload' },
      );
    }
    const compact = args.bodyBase64.replace(/\s+/g, '');
    if (!BASE64.test(compact)) throw invalidInput('bodyBase64 is not base64 (A–Z, a–z, 0–9, +, /, = padding). Nothing was stored.', { field: 'bodyBase64' });
    return { body: Buffer.from(compact, 'base64'), type: 'application/pdf' };
  }
  if (args.method !== 'POST') return {};
  return { body: JSON.stringify(args.body ?? {}), type: args.body ? 'application/json' : undefined };
}

/**
 * study_call goes through the bridge's own HTTP surface (loopback, with the
 * caller's own token), so every guard, gate, scope and error of the route
 * table applies exactly as for an HTTP agent, and the actor is the caller.
 */
export async function callRoute(services: RouteServices, token: string, args: RouteCallArgs): Promise<CallToolResult> {
  let sent: { body?: string | Buffer; type?: string };
  try {
    // Checked here, not only by the route: a URL would turn a lone surrogate into U+FFFD on the way.
    refuseUnstorable({ ...args, bodyBase64: undefined }, 'arguments');
    sent = requestBody(args);
  } catch (e) {
    if (e instanceof BridgeError) return toolError(e);
    throw e;
  }
  const path = args.path.startsWith('/') ? args.path : `/${args.path}`;
  if (/^\/mcp\b/.test(path)) return { isError: true, content: [{ type: 'text', text: 'study_call cannot call /mcp itself.' }] };
  const url = new URL(services.baseUrl() + path);
  for (const [k, v] of Object.entries(args.query ?? {})) url.searchParams.set(k, String(v));
  const res = await fetch(url, {
    method: args.method,
    headers: { Authorization: `Bearer ${token}`, ...(sent.type ? { 'Content-Type': sent.type } : {}) },
    body: typeof sent.body === 'string' || sent.body === undefined ? sent.body : new Uint8Array(sent.body),
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
