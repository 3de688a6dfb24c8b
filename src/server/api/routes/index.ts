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

/** The route table: every route the bridge serves, each declared once in its module. */
export const allRoutes: readonly RouteDecl[] = [
  ...systemRoutes,
  ...guideTableRoutes,
  ...studySetRoutes,
  ...studySetCardRoutes,
  ...snapshotRoutes,
  ...noteReadRoutes,
  ...noteEditRoutes,
  ...noteStructureRoutes,
  ...documentRoutes,
  ...libraryDocumentRoutes,
  ...searchRoutes,
  ...deckRoutes,
  ...deckCardRoutes,
  ...deckOptionRoutes,
  ...deckOptimizeRoutes,
  ...deckCardActionRoutes,
  ...deckStatsRoutes,
  ...ankiPackageRoutes,
  ...libraryChangeRoutes,
  ...bundleRoutes,
  ...noteImageRoutes,
  ...mindMapPrintRoutes,
  ...outlineRoutes,
  ...annotationRoutes,
  ...uiStateRoutes,
  ...legacySyncRoutes,
  ...tokenRoutes,
  ...approvalRoutes,
];

/** Every declaration with its literal method, path and schema types: what client/routeCalls.ts types its calls by. */
export type BridgeRoute =
  | (typeof systemRoutes)[number]
  | (typeof guideTableRoutes)[number]
  | (typeof studySetRoutes)[number]
  | (typeof studySetCardRoutes)[number]
  | (typeof snapshotRoutes)[number]
  | (typeof noteReadRoutes)[number]
  | (typeof noteEditRoutes)[number]
  | (typeof noteStructureRoutes)[number]
  | (typeof documentRoutes)[number]
  | (typeof libraryDocumentRoutes)[number]
  | (typeof searchRoutes)[number]
  | (typeof deckRoutes)[number]
  | (typeof deckCardRoutes)[number]
  | (typeof deckOptionRoutes)[number]
  | (typeof deckOptimizeRoutes)[number]
  | (typeof deckCardActionRoutes)[number]
  | (typeof deckStatsRoutes)[number]
  | (typeof ankiPackageRoutes)[number]
  | (typeof libraryChangeRoutes)[number]
  | (typeof bundleRoutes)[number]
  | (typeof noteImageRoutes)[number]
  | (typeof mindMapPrintRoutes)[number]
  | (typeof outlineRoutes)[number]
  | (typeof annotationRoutes)[number]
  | (typeof uiStateRoutes)[number]
  | (typeof legacySyncRoutes)[number]
  | (typeof tokenRoutes)[number]
  | (typeof approvalRoutes)[number];
