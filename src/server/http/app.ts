import FindMyWay from 'find-my-way';
import Koa, { type Context } from 'koa';
import type { BridgeServices } from '../services';
import { errorMapper } from './errorMapper';
import { loopbackGuard } from './loopbackGuard';
import { routeMiddleware } from './routeMiddleware';
import type { RouteDecl } from './routeTable';

export const API_PREFIX = '/bridge/v1';

export interface RequestLogEntry {
  method: string;
  /** Path without the query string: queries may carry one-time codes. */
  path: string;
  status: number;
  ms: number;
}

export interface HttpAppOptions {
  port: () => number;
  onRequest?: (e: RequestLogEntry) => void;
  onInternalError?: (e: unknown) => void;
}

/** `{id}` (spec style) → `:id` (router style). */
export const koaPath = (path: string) => API_PREFIX + path.replace(/\{(\w+)\}/g, ':$1');

export function createHttpApp(routes: readonly RouteDecl[], services: BridgeServices, opts: HttpAppOptions): Koa {
  const app = new Koa();
  app.silent = true; // errors are mapped and logged by us, never printed with stacks
  // find-my-way (Fastify's radix-tree router): one lookup per request, no per-request
  // middleware composition; @koa/router cost more than the whole of a bare Koa request.
  const router = FindMyWay();
  for (const route of routes) {
    const handle = routeMiddleware(route, services);
    router.on(route.method, koaPath(route.path), () => undefined, { handle });
  }
  const onRequest = opts.onRequest;
  if (onRequest) {
    app.use(async (ctx, next) => {
      const start = performance.now();
      try {
        await next();
      } finally {
        onRequest({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - start) * 10) / 10 });
      }
    });
  }
  app.use(errorMapper(opts.onInternalError ?? (() => undefined)));
  app.use(loopbackGuard(opts.port));
  app.use(async (ctx, next) => {
    const found = router.find(ctx.method as 'GET' | 'POST', ctx.path);
    if (!found) return next(); // unmatched: the error mapper answers 404
    (ctx as Context & { params: Record<string, string | undefined> }).params = found.params;
    await (found.store as { handle: (ctx: Context) => Promise<void> }).handle(ctx);
  });
  return app;
}
