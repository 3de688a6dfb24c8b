import type { RouteDecl } from '../http/routeTable';

/** Routes: bundles (prepare, list, files, focus, discard, submit, check). */
export const bundleRoutes: RouteDecl[] = [];
