import type { RouteDecl } from '../http/routeTable';

/** Routes: card images (content, render) and image occlusions. */
export const noteImageRoutes: RouteDecl[] = [];
