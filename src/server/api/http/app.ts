import Koa from 'koa';
import { errorMapper } from './errorMapper';
import { loopbackGuard } from './loopbackGuard';
import { mcpCors } from './mcpCors';
import { API_PREFIX, createRouter } from './router';
import type { RouteDecl, RouteServices } from './routeTable';

export { API_PREFIX, koaPath } from './router';

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

export function createHttpApp(routes: readonly RouteDecl[], services: RouteServices, opts: HttpAppOptions): Koa {
  const app = new Koa();
  app.silent = true; // errors are mapped and logged by us, never printed with stacks
  const onRequest = opts.onRequest;
  if (onRequest) {
    app.use(async (ctx, next) => {
      const start = performance.now();
      try {
        await next();
      } finally {
        onRequest({
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round((performance.now() - start) * 10) / 10,
        });
      }
    });
  }
  app.use(errorMapper(opts.onInternalError ?? (() => undefined)));
  // MCP clients in a browser on this machine may connect (MCP Streamable HTTP); the REST routes keep "no Origin".
  const pagePaths = [`${API_PREFIX}/mcp`];
  app.use(loopbackGuard(opts.port, { loopbackOriginPaths: pagePaths }));
  app.use(mcpCors(pagePaths));
  app.use(createRouter(routes, services)); // unmatched: falls through, the error mapper answers 404
  return app;
}
