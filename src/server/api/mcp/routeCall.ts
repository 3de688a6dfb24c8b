import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BridgeError, invalidInput } from '../../errors';
import { errorBody } from '../http/errorMapper';
import { refuseUnstorable } from '../http/storableText';
import type { RouteServices } from '../http/routeTable';
import { API_PREFIX } from '../http/router';
import { BODY_BASE64_MAX_CHARS, DEFAULT_IMAGE_MAX_PX, PDF_EMBED_LIMIT } from './mcpBudget';
import { rerunnable, routeOf, type CallCursor } from './continuation';
import { heldAnswer } from './heldResults';
import { fitImage } from './imageFit';
import { budgetAnswer, checkBudgetArgs } from './resultBudget';

export interface RouteCallArgs {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
  bodyBase64?: string;
  /** The text budget of this result (resultBudget.ts). */
  maxBytes?: number;
  /** Long edge of image results, in pixels (imageFit.ts). */
  imageMaxPx?: number;
  /** Where a cut answer continues, as its `next` gave it. */
  cursor?: CallCursor;
}

export const toolError = (e: BridgeError): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: JSON.stringify(errorBody(e)) }],
});

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The request body: JSON, or the decoded bytes of `bodyBase64` for routes that take a file's bytes. */
function requestBody(args: RouteCallArgs): { body?: string | Buffer; type?: string } {
  if (args.bodyBase64 !== undefined) {
    if (args.body)
      throw invalidInput('Send either body (JSON) or bodyBase64 (raw bytes), not both.', {
        fields: ['body', 'bodyBase64'],
      });
    if (args.method !== 'POST')
      throw invalidInput('bodyBase64 is for POST routes that take raw bytes (upload).', { field: 'bodyBase64' });
    if (args.bodyBase64.length > BODY_BASE64_MAX_CHARS) {
      throw new BridgeError(
        'MCP_BODY_TOO_LARGE',
        413,
        `bodyBase64 is ${args.bodyBase64.length} characters, over the MCP budget of ${BODY_BASE64_MAX_CHARS}: use the study_upload tool with the file's path instead. Nothing was stored.`,
        { limitChars: BODY_BASE64_MAX_CHARS, mcpTool: 'study_upload' },
      );
    }
    const compact = args.bodyBase64.replace(/\s+/g, '');
    if (!BASE64.test(compact))
      throw invalidInput('bodyBase64 is not base64 (A–Z, a–z, 0–9, +, /, = padding). Nothing was stored.', {
        field: 'bodyBase64',
      });
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
    checkBudgetArgs(args);
    sent = requestBody(args);
  } catch (e) {
    if (e instanceof BridgeError) return toolError(e);
    throw e;
  }
  const caller = services.tokens.identify(token);
  // Held answers are read back only with the token that made the call.
  const holder = caller ? (caller.tokenId ?? 'owner') : 'nobody';
  if (args.cursor?.held !== undefined) return continueHeld(args, holder);
  const path = args.path.startsWith('/') ? args.path : `/${args.path}`;
  if (/^\/mcp\b/.test(path))
    return { isError: true, content: [{ type: 'text', text: 'study_call cannot call /mcp itself.' }] };
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
    const img = await fitImage(bytes, mimeType, args.imageMaxPx ?? DEFAULT_IMAGE_MAX_PX);
    return { isError, content: [{ type: 'image', data: img.data.toString('base64'), mimeType: img.mimeType }] };
  }
  if (mimeType === 'application/json' || mimeType.startsWith('text/')) {
    const text = bytes.toString('utf8');
    const route = routeOf(services.routes, args.method, url.pathname.slice(API_PREFIX.length));
    try {
      const content = budgetAnswer({
        route,
        args,
        answer: parsedObject(text) ?? text,
        text,
        rerunnable: rerunnable(route, args),
        holder,
      });
      return { isError, content };
    } catch (e) {
      if (e instanceof BridgeError) return toolError(e);
      throw e;
    }
  }
  return binaryAnswer({ status: res.status, isError, bytes, type, mimeType, method: args.method, url });
}

/** A PDF embedded as a resource when small enough; other bytes only described, to be read over HTTP. */
function binaryAnswer(r: {
  status: number;
  isError: boolean;
  bytes: Buffer;
  type: string;
  mimeType: string;
  method: string;
  url: URL;
}): CallToolResult {
  const { isError, bytes, type, mimeType, url } = r;
  if (mimeType === 'application/pdf') {
    const note = `HTTP ${r.status}: a PDF of ${bytes.length} bytes from ${r.method} ${url.pathname}`;
    // Embedded as a resource up to a size an MCP client can hold in one message; larger ones are read over HTTP.
    if (bytes.length > PDF_EMBED_LIMIT)
      return {
        isError,
        content: [
          { type: 'text', text: `${note}, too large to embed (over ${PDF_EMBED_LIMIT} bytes): read it over HTTP.` },
        ],
      };
    return {
      isError,
      content: [
        { type: 'text', text: `${note}, embedded below as a resource.` },
        {
          type: 'resource',
          resource: { uri: `studybridge:${url.pathname}${url.search}`, mimeType, blob: bytes.toString('base64') },
        },
      ],
    };
  }
  return {
    isError,
    content: [
      {
        type: 'text',
        text: `HTTP ${r.status}: ${bytes.length} bytes of ${type || 'binary data'} (read it over HTTP: ${r.method} ${url.pathname})`,
      },
    ],
  };
}

/** The answer as a JSON object, or undefined for text (Markdown, OPML, a JSON array or scalar). */
function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The rest of a write's cut answer, from memory: the write is not run again. */
function continueHeld(args: RouteCallArgs, holder: string): CallToolResult {
  const held = heldAnswer(holder, args.cursor!.held!);
  if (!held) {
    return toolError(
      new BridgeError(
        'RESULT_EXPIRED',
        410,
        'That cut answer is no longer held (held 10 minutes, for the token that made the call, until the bridge restarts). Nothing was run: read what the call made through its routes.',
        { field: 'cursor.held' },
      ),
    );
  }
  const answer = typeof held.$text === 'string' ? held.$text : held;
  try {
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    return { content: budgetAnswer({ route: undefined, args, answer, text, rerunnable: false, holder }) };
  } catch (e) {
    if (e instanceof BridgeError) return toolError(e);
    throw e;
  }
}
