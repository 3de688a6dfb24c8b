import type { RouteDecl } from '../http/routeTable';

/** Routes: the change feed views follow. */
export const libraryChangeRoutes: RouteDecl[] = [];
