import type { RouteDecl } from '../http/routeTable';

/** Routes: study-set reads (tree, sub-maps, notebooks, hashtags, note-palette), open, delete and card creation. */
export const studySetCardRoutes: RouteDecl[] = [];
