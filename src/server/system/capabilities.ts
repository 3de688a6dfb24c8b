import type { BridgeLimits } from '../config';
import type { RouteDecl } from '../http/routeTable';
import { ANCHOR_MODES, FILL_INDEX_SEMANTICS, PRESETS } from '../bundles/vocabulary';
import { apiFingerprint, describeRoute, listedRoutes } from './routeFingerprint';

/** GET /capabilities, derived from the route table. */
export function buildCapabilities(routes: readonly RouteDecl[], limits: BridgeLimits, guide: { version: string; sha256: string }) {
  const listed = listedRoutes(routes);
  return {
    routes: listed.map(describeRoute),
    routeCount: listed.length,
    apiFingerprint: apiFingerprint(routes),
    accessPolicy: {
      routeField: 'requiresMax',
      readOnlyRequiresMax: false,
      writeRequiresMax: true,
      setupNavigationAndTemporaryExportRequireMax: false,
      userDataStillRequiresBearerToken: true,
      tokenFreeRoutes: routes.filter((r) => r.auth === 'none').map((r) => `${r.method} ${r.path}`),
    },
    presets: PRESETS,
    anchorModes: ANCHOR_MODES,
    fillIndexSemantics: FILL_INDEX_SEMANTICS,
    limits: {
      pagesPerCall: 60,
      preparePagesMax: 60,
      batchGetMax: 200,
      moveCopyDeleteMax: 50,
      tocLevels: [0, 7],
      virtualPageFrom: 66000,
      jsonBodyBytes: limits.jsonBodyBytes,
      uploadBytes: limits.uploadBytes,
      installCodeSeconds: limits.installCodeMs / 1000,
      pairCodeSeconds: limits.pairCodeMs / 1000,
      pairAttempts: limits.pairAttempts,
    },
    guide: { version: guide.version, sha256: guide.sha256, route: '/guide', usesExistingBearer: true, rotatesToken: false, installRequired: false },
  };
}
