import { defineRoute, Reply, type RouteDecl } from '../http/routeTable';

/** Routes: the route table the guide points to (GET /guide itself is in system.ts). */
export const guideTableRoutes = [
  defineRoute({
    method: 'GET',
    path: '/guide/routes',
    summary:
      "Every route as a Markdown table: token, premium, confirm gate, dry-run and the answer's proof field (GET /guide links here).",
    replyType: 'text/markdown; charset=utf-8',
    handler: async ({ services }) => new Reply(services.guide.routes, 'text/markdown; charset=utf-8'),
  }),
] satisfies RouteDecl[];
