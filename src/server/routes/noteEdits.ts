import type { RouteDecl } from '../http/routeTable';

/** Routes: hashtags, metadata, fold, title, text and comments. */
export const noteEditRoutes: RouteDecl[] = [];
