import type { RouteDecl } from '../http/routeTable';

/** Routes: snapshots list, create and restore. */
export const snapshotRoutes: RouteDecl[] = [];
