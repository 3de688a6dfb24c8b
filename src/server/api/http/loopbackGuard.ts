import type { Context, Next } from 'koa';
import { BridgeError } from '../../errors';

/**
 * Only local agents, never a web page: any Origin header is refused (browsers
 * always send one on cross-origin requests), and so is a Host that is not a
 * loopback name with our port (DNS rebinding). `originChecked`: the caller
 * judges the Origin itself (the AnkiConnect port lets listed extensions in).
 */
export function loopbackGuard(port: () => number, opts: { originChecked?: boolean } = {}) {
  let allowedFor = -1;
  let allowed: string[] = [];
  return async (ctx: Context, next: Next) => {
    if (ctx.get('Origin') && !opts.originChecked) {
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
