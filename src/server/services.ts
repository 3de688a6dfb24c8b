import type { Store } from './ground/store/store';
import type { UiHost } from './domain/ui/uiHost';
import type { Entitlements } from './entitlements';
import type { BridgeConfig } from './config';
import type { AccessCodes } from './domain/security/accessCodes';
import type { TokenRegistry } from './domain/security/tokens';
import type { StudySets } from './domain/library/studySets';
import type { StudySetDocuments } from './domain/cards/studySetDocuments';
import type { LibrarySearch } from './domain/library/librarySearch';
import type { BookTextIndex } from './ground/search/bookTextIndex';
import type { Decks } from './domain/library/decks';
import type { DocumentCatalogue } from './domain/library/documentCatalogue';
import type { ExtractionScheduler } from './domain/library/extractionScheduler';
import type { PageReader } from './domain/library/pageReader';
import type { ExportSlot } from './domain/library/exportSlot';
import type { ExtractionPool } from './ground/pdf/extractionPool';
import type { PageCache } from './ground/cache/pageCache';
import type { DocumentReader } from './domain/library/documentReader';
import type { UiStateService } from './domain/ui/uiStateService';
import type { LegacySync } from './domain/sync/legacySyncService';
import type { BundleService } from './domain/bundles/bundleService';
import type { BundlePrepareJob } from './domain/bundles/bundlePrepareJob';
import type { SnapshotFiles } from './domain/cards/snapshotFiles';
import type { StorageMonitor } from './ground/store/storageMonitor';
import type { LibraryEvents } from './domain/events/libraryEvents';
import type { ApprovalService } from './domain/approvals/approvalService';

/**
 * What route handlers can reach (with the route table itself: RouteServices in
 * http/routeTable.ts). Each domain adds its service here; handlers stay thin
 * and call a service. Domain code never takes this whole: each service
 * declares the few collaborators it needs.
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
  /** Library documents: rows, files, file state (upload: documentUpload.ts, delete: documentDelete.ts). */
  documents: DocumentCatalogue;
  /** Background extraction of pages into the page cache, and the waits of reads. */
  extraction: ExtractionScheduler;
  /** Reads of extracted pages and outlines. */
  pages: PageReader;
  /** The PDF worker pool (info, render, export, extraction). */
  pool: ExtractionPool;
  /** Extracted pages on disk: <dataDir>/cache/pages. */
  pageCache: PageCache;
  /** One export at a time (documents, mind-map prints). */
  exportSlot: ExportSlot;
  /** Reading routes over stored pages. */
  documentReader: DocumentReader;
  /** Book-splitting bundles: folders, list, files, focus, discard (submit: bundleSubmit.ts). */
  bundles: BundleService;
  /** The prepare job (one at a time, in bundles.runner). */
  bundlePrepare: BundlePrepareJob;
  /** Snapshot contents: content-addressed files under <dataDir>/snapshots/. */
  snapshotFiles: SnapshotFiles;
  /** Whether the data dir's disk takes writes (GET /status `storage`); told of every write that failed for space. */
  storage?: StorageMonitor;
  /** The UI bookmark (GET /ui-state, POST /ui-state/apply). */
  uiState: UiStateService;
  /** Legacy sync diagnostics: the event log, the library watcher, recheck and inventory. */
  legacySync: LegacySync;
  /** Recent library changes by kind and id, for GET /events. */
  events: LibraryEvents;
  /** Agent calls held for the person's decision (policy, pending, decided). */
  approvals: ApprovalService;
  /** Derived once from the route table. */
  routeSummary: { apiFingerprint: string; routeCount: number };
  /** Aborted when the bridge starts closing: long-running requests (long polls) end instead of holding the close. */
  closing: AbortSignal;
  /** Changes on every start; also in bridge.json. */
  instanceNonce: string;
  /** The runtime guide, built once from the route table. */
  guide: { markdown: string; routes: string; topics: Record<string, string>; version: string; sha256: string };
  /** Base URL once listening, e.g. http://127.0.0.1:42380/bridge/v1 */
  baseUrl(): string;
  /** Conditions found at start that the user should fix (e.g. a data dir other users can read); on stderr and in /status. */
  warnings: string[];
}
