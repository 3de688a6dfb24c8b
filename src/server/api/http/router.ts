import Router from '@koa/router';
import type { Middleware } from 'koa';
import { routeMiddleware } from './routeMiddleware';
import { withNoSpaceAnswer } from './noSpaceAnswer';
import type { RouteDecl, RouteServices } from './routeTable';
import { AnswerCache } from './answerCache';

export const API_PREFIX = '/bridge/v1';

/** `{id}` (spec style) → `:id` (router style). */
export const koaPath = (path: string) => API_PREFIX + path.replace(/\{(\w+)\}/g, ':$1');

/** "GET notes" for GET /bridge/v1/notes/…: the key of the router that holds the route. */
function groupKey(method: string, path: string): string | undefined {
  if (!path.startsWith(API_PREFIX) || path.charCodeAt(API_PREFIX.length) !== 47 /* / */) return undefined;
  const end = path.indexOf('/', API_PREFIX.length + 1);
  return `${method} ${path.slice(API_PREFIX.length + 1, end < 0 ? undefined : end)}`;
}

/**
 * The route table on @koa/router, one router per method and first path
 * segment. A single router tests every route's regexp and composes a
 * middleware chain on each request: with the contract's ~80 routes that cost
 * GET /status about a third of its throughput; a Map lookup first leaves each
 * router a handful of routes (GET status: one).
 *
 * Matching is exact: case-sensitive, no optional trailing slash. An unmatched
 * path or method falls through to the error mapper's JSON 404 — HEAD too:
 * @koa/router would run the GET handler for it, and some GETs act (GET
 * /install redeems its one-time code).
 */
export function createRouter(routes: readonly RouteDecl[], services: RouteServices): Middleware {
  const routers = new Map<string, Router>();
  const answers = new AnswerCache(services.store);
  for (const route of routes) {
    const path = koaPath(route.path);
    const key = groupKey(route.method, path)!;
    let router = routers.get(key);
    if (!router) routers.set(key, (router = new Router({ sensitive: true, strict: true, exclusive: true })));
    const handle = withNoSpaceAnswer(route, services, routeMiddleware(route, services, answers));
    router.register(path, [route.method], (ctx) => handle(ctx), { name: `${route.method} ${route.path}` });
  }
  const dispatchers = new Map([...routers].map(([key, router]) => [key, router.routes() as unknown as Middleware]));
  return (ctx, next) => {
    const key = ctx.method === 'HEAD' ? undefined : groupKey(ctx.method, ctx.path);
    const dispatch = key === undefined ? undefined : dispatchers.get(key);
    return dispatch ? (dispatch(ctx, next) as Promise<void>) : next();
  };
}
