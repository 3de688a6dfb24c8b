import type { Context, Next } from 'koa';
import { isLoopbackOrigin } from './loopbackGuard';

const ALLOW_HEADERS =
  'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID';

/**
 * CORS for a page on this machine reaching /mcp (browser MCP inspectors, MCP
 * App hosts): its preflight is answered here (a preflight carries no token),
 * and its answers may be read by that page only. Any other Origin never gets
 * this far (loopbackGuard); without the token the page still gets 401.
 */
export function mcpCors(paths: readonly string[]) {
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    if (!origin || !paths.includes(ctx.path) || !isLoopbackOrigin(origin)) return next() as Promise<void>;
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Vary', 'Origin');
    ctx.set('Access-Control-Expose-Headers', 'Mcp-Session-Id, WWW-Authenticate');
    if (ctx.method !== 'OPTIONS') return next() as Promise<void>;
    ctx.set('Access-Control-Allow-Methods', 'POST, GET');
    ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
  };
}
