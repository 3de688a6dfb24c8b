import type { RouteDecl } from '../http/routeTable';
import { studySetRoutes } from './studySets';
import { systemRoutes } from './system';
import { documentRoutes } from './documents';
import { libraryDocumentRoutes } from './libraryDocuments';
import { searchRoutes } from './search';
import { deckRoutes } from './decks';
import { studySetCardRoutes } from './studySetCards';
import { noteReadRoutes } from './noteReads';
import { noteEditRoutes } from './noteEdits';
import { noteStructureRoutes } from './noteStructure';
import { snapshotRoutes } from './snapshots';
import { deckCardRoutes } from './deckCards';
import { deckOptionRoutes } from './deckOptions';
import { deckOptimizeRoutes } from './deckOptimize';
import { deckCardActionRoutes } from './deckCardActions';
import { deckStatsRoutes } from './deckStats';
import { libraryChangeRoutes } from './libraryChanges';
import { bundleRoutes } from './bundles';
import { noteImageRoutes } from './noteImages';
import { uiStateRoutes } from './uiState';
import { legacySyncRoutes } from './legacySync';
import { mindMapPrintRoutes } from './mindMapPrint';
import { tokenRoutes } from './tokens';
import { outlineRoutes } from './outline';
import { approvalRoutes } from './approvals';
import { guideTableRoutes } from './guideTable';
import { annotationRoutes } from './annotations';
import { ankiPackageRoutes } from './ankiPackages';

/** The route table's groups, each declared once in its module. */
const routeGroups = [
  systemRoutes,
  guideTableRoutes,
  studySetRoutes,
  studySetCardRoutes,
  snapshotRoutes,
  noteReadRoutes,
  noteEditRoutes,
  noteStructureRoutes,
  documentRoutes,
  libraryDocumentRoutes,
  searchRoutes,
  deckRoutes,
  deckCardRoutes,
  deckOptionRoutes,
  deckOptimizeRoutes,
  deckCardActionRoutes,
  deckStatsRoutes,
  ankiPackageRoutes,
  libraryChangeRoutes,
  bundleRoutes,
  noteImageRoutes,
  mindMapPrintRoutes,
  outlineRoutes,
  annotationRoutes,
  uiStateRoutes,
  legacySyncRoutes,
  tokenRoutes,
  approvalRoutes,
] as const;

/** The route table: every route the bridge serves. */
export const allRoutes: readonly RouteDecl[] = routeGroups.flat();

/** Every declaration with its literal method, path and schema types: what client/routeCalls.ts types its calls by. */
export type BridgeRoute = (typeof routeGroups)[number][number];
