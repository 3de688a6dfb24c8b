import type { RouteDecl } from '../http/routeTable';

/** Routes: legacy sync diagnostics (status, events, recheck, inventory). */
export const legacySyncRoutes: RouteDecl[] = [];
