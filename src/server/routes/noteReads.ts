import type { RouteDecl } from '../http/routeTable';

/** Routes: batch-get and focus. */
export const noteReadRoutes: RouteDecl[] = [];
