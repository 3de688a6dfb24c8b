import type { Context, Next } from 'koa';
import { BridgeError } from '../../errors';

/** A page served from this machine: http on localhost, 127.0.0.1 or [::1], any port. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname) && u.origin === origin;
  } catch {
    return false;
  }
}

/**
 * Only local agents, never a web page: any Origin header is refused (browsers
 * always send one on cross-origin requests), and so is a Host that is not a
 * loopback name with our port (DNS rebinding). `originChecked`: the caller
 * judges the Origin itself (the AnkiConnect port lets listed extensions in).
 * `loopbackOriginPaths`: these paths also take a page on this machine
 * (browser MCP inspectors, MCP App hosts). A rebinding page still fails: its
 * Origin and Host name its own domain. A loopback page cannot reach the
 * library without the bearer token, which a browser never adds by itself.
 */
export function loopbackGuard(
  port: () => number,
  opts: { originChecked?: boolean; loopbackOriginPaths?: readonly string[] } = {},
) {
  let allowedFor = -1;
  let allowed: string[] = [];
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    const pageAllowed = opts.loopbackOriginPaths?.includes(ctx.path) && isLoopbackOrigin(origin);
    if (origin && !opts.originChecked && !pageAllowed) {
      throw new BridgeError(
        'FORBIDDEN_ORIGIN',
        403,
        'Requests with an Origin header are refused: the bridge serves local agents, not web pages.',
      );
    }
    const host = ctx.get('Host').toLowerCase();
    const p = port();
    if (p !== allowedFor) [allowedFor, allowed] = [p, [`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`]];
    if (!allowed.includes(host)) {
      throw new BridgeError(
        'FORBIDDEN_HOST',
        403,
        `Host "${host}" is not this bridge's loopback address (127.0.0.1:${p}).`,
      );
    }
    await next();
  };
}
