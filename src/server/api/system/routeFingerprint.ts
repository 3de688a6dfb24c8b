import { createHash } from 'node:crypto';
import type { RouteDecl } from '../http/routeTable';
import { routeScope } from '../../domain/security/scopes';

/** What an agent needs to know about a route, as /capabilities lists it. */
export function describeRoute(r: RouteDecl) {
  return {
    method: r.method,
    path: r.path,
    requiresToken: r.auth !== 'none',
    requiresMax: !!r.premium,
    confirm: r.confirm ?? 'none',
    dryRun: !!r.dryRun,
    /** The token scope a confirmed call needs (an unconfirmed dry-run needs read); none: token-free. */
    scope: r.auth === 'none' ? ('none' as const) : routeScope(r),
    /** Loses the person's data: an agent's confirmed call waits for approval under policy 'destructive' (a string: only when). */
    ...(r.destructive ? { destructive: r.destructive.when?.says ?? true } : {}),
  };
}

export const listedRoutes = (routes: readonly RouteDecl[]) => routes.filter((r) => r.listed !== false);

/** 12 hex digits of a hash over the route table: changes whenever a route or its gates change. */
export function apiFingerprint(routes: readonly RouteDecl[]): string {
  const lines = routes.map((r) => JSON.stringify(describeRoute(r))).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 12);
}
