import type { BridgeLimits } from '../../config';
import type { RouteDecl } from '../http/routeTable';
import { ANCHOR_MODES, PRESETS } from '../../domain/bundles/vocabulary';
import { apiFingerprint, describeRoute, listedRoutes } from './routeFingerprint';
import {
  capabilityLimits,
  cardImageFeatures,
  deckFeatures,
  noteFeatures,
  studySetFeatures,
  type Served,
} from './capabilityFeatures';

/** GET /capabilities, derived from the route table. */
export function buildCapabilities(
  routes: readonly RouteDecl[],
  limits: BridgeLimits,
  guide: { version: string; sha256: string },
) {
  const listed = listedRoutes(routes);
  // A feature block is described only when its route is served.
  const served = (method: string, path: string) => listed.some((r) => r.method === method && r.path === path);
  const on: Served = { served, feature: (method, path, value) => (served(method, path) ? value : undefined) };
  return {
    routes: listed.map((r) => ({
      ...describeRoute(r),
      ...(r.rawBody?.mediaType ? { rawBody: r.rawBody.mediaType } : {}),
      ...(r.example ? { example: r.example } : {}),
    })),
    routeCount: listed.length,
    apiFingerprint: apiFingerprint(routes),
    accessPolicy: accessPolicy(routes),
    presets: PRESETS,
    anchorModes: ANCHOR_MODES,
    ...noteFeatures(on),
    ...deckFeatures(on),
    ...cardImageFeatures(on),
    ...studySetFeatures(on),
    limits: capabilityLimits(limits),
    guide: {
      version: guide.version,
      sha256: guide.sha256,
      route: '/guide',
      usesExistingBearer: true,
      rotatesToken: false,
      installRequired: false,
    },
  };
}

function accessPolicy(routes: readonly RouteDecl[]) {
  return {
    routeField: 'requiresMax',
    readOnlyRequiresMax: false,
    writeRequiresMax: true,
    setupNavigationAndTemporaryExportRequireMax: false,
    userDataStillRequiresBearerToken: true,
    tokenFreeRoutes: routes.filter((r) => r.auth === 'none').map((r) => `${r.method} ${r.path}`),
  };
}
