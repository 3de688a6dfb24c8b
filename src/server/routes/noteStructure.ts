import type { RouteDecl } from '../http/routeTable';

/** Routes: move, copy, delete, merge-branch and fold-into-sub-map. */
export const noteStructureRoutes: RouteDecl[] = [];
