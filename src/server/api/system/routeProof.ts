import { z } from 'zod';
import type { RouteDecl } from '../http/routeTable';

/**
 * The field of a write route's answer that proves it took effect, read from
 * its declared response schema (never written by hand): the first field
 * declared `z.literal(true)`, else a boolean `persisted`. The API tests check
 * every answer against that schema, so the guide cannot name a proof the
 * route does not give.
 */
export function proofField(r: Pick<RouteDecl, 'response'>): string | undefined {
  const shape = r.response?.shape ?? {};
  const literal = Object.entries(shape).find(([, s]) => s instanceof z.ZodLiteral && s.values.has(true));
  if (literal) return literal[0];
  return shape.persisted instanceof z.ZodBoolean ? 'persisted' : undefined;
}

/** `field:true` of the route named "METHOD /path"; throws while the guide is built when it has none (a test then fails). */
export function proofOf(routes: readonly RouteDecl[], route: string): string {
  const r = routes.find((x) => `${x.method} ${x.path}` === route);
  const field = r && proofField(r);
  if (!field)
    throw new Error(
      `The guide names a proof for ${route}, which ${r ? 'declares no proof field in its response' : 'is not a route'}.`,
    );
  return `\`${field}:true\``;
}
