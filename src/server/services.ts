import type { Store } from './store/store';
import type { UiHost } from './ui/uiHost';
import type { Entitlements } from './entitlements';
import type { BridgeConfig } from './config';
import type { AccessCodes } from './security/accessCodes';
import type { TokenRegistry } from './security/tokens';
import type { RouteDecl } from './http/routeTable';
import type { Guide } from './system/guide';
import type { StudySets } from './library/studySets';
import type { StudySetDocuments } from './library/studySetDocuments';
import type { LibrarySearch } from './library/librarySearch';
import type { BookTextIndex } from './search/bookTextIndex';
import type { Decks } from './library/decks';
import type { DocumentService } from './library/documentService';
import type { DocumentReader } from './library/documentReader';
import type { UiStateService } from './ui/uiStateService';
import type { LegacySync } from './sync/legacySyncService';
import type { BundleService } from './bundles/bundleService';
import type { SnapshotFiles } from './cards/snapshotFiles';

/**
 * What route handlers can reach. Each domain adds its service here; handlers
 * stay thin and call a service.
 */
export interface BridgeServices {
  config: BridgeConfig;
  store: Store;
  ui: UiHost;
  entitlements: Entitlements;
  tokens: TokenRegistry;
  codes: AccessCodes;
  studySets: StudySets;
  studySetDocuments: StudySetDocuments;
  search: LibrarySearch;
  /** Document-text index: per-book files under <dataDir>/cache/text-index. */
  bookIndex: BookTextIndex;
  decks: Decks;
  /** Library documents: upload, extraction, delete, file state. */
  documents: DocumentService;
  /** Reading routes over stored pages. */
  documentReader: DocumentReader;
  /** Book-splitting bundles: prepare jobs, folders, submit. */
  bundles: BundleService;
  /** Snapshot contents: content-addressed files under <dataDir>/snapshots/. */
  snapshotFiles: SnapshotFiles;
  /** The UI bookmark (GET /ui-state, POST /ui-state/apply). */
  uiState: UiStateService;
  /** Legacy sync diagnostics: the event log, the library watcher, recheck and inventory. */
  legacySync: LegacySync;
  /** The route table, for system routes that describe it. */
  routes: readonly RouteDecl[];
  /** Derived once from the route table. */
  routeSummary: { apiFingerprint: string; routeCount: number };
  /** Aborted when the bridge starts closing: long-running requests (long polls) end instead of holding the close. */
  closing: AbortSignal;
  /** Changes on every start; also in bridge.json. */
  instanceNonce: string;
  /** The runtime guide, built once from the route table. */
  guide: Guide;
  /** Base URL once listening, e.g. http://127.0.0.1:42380/bridge/v1 */
  baseUrl(): string;
}
