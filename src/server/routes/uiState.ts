import type { RouteDecl } from '../http/routeTable';

/** Routes: the UI-state bookmark (read, apply). */
export const uiStateRoutes: RouteDecl[] = [];
