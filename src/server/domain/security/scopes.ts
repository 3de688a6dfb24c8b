/**
 * What a token may do. `read`: GETs and the POSTs that only read (search,
 * batch-get, check, previews) plus every dry-run (an unconfirmed call of a
 * confirm-gated route, which answers what it would do and changes nothing).
 * `write`: everything an agent did before scopes (test/api/tokenIdentity.test.ts). `owner`: the person
 * (the data dir's token file): minting, listing and revoking tokens, codes.
 */
export type Scope = 'read' | 'write' | 'owner';

export const SCOPES: readonly Scope[] = ['read', 'write', 'owner'];
export const AGENT_SCOPES = ['read', 'write'] as const;
export type AgentScope = (typeof AGENT_SCOPES)[number];

const rank: Record<Scope, number> = { read: 0, write: 1, owner: 2 };

/** What scopes.ts reads of a route declaration (http/routeTable.ts). */
export interface ScopedRoute {
  method: 'GET' | 'POST';
  scope?: Scope;
  confirm?: 'none' | 'body' | 'query';
}

export const covers = (have: Scope, need: Scope) => rank[have] >= rank[need];

/** The scope a route needs when confirmed: its declared one, else read for GET and write for POST. */
export const routeScope = (route: ScopedRoute): Scope => route.scope ?? (route.method === 'GET' ? 'read' : 'write');

/** The scope this call needs: a write route's dry-run (not confirmed) only reads. */
export function neededScope(route: ScopedRoute, confirmed: boolean): Scope {
  const need = routeScope(route);
  return need === 'write' && !confirmed && route.confirm !== undefined && route.confirm !== 'none' ? 'read' : need;
}
