import type { RouteDecl } from '../http/routeTable';

/** Routes: mind-map print (preview, export). */
export const mindMapPrintRoutes: RouteDecl[] = [];
