// The services every route is given (RouteServices), built on an open store:
// the data dir's migrations first, then the reading parts (catalogue, extraction,
// pages, book index), then the rest; and the work an interrupted run left, resumed.
import { join } from 'node:path';
import { defaultImportFolders, defaultLimits, type BridgeConfig } from './config';
import { staticEntitlements } from './entitlements';
import type { BridgeOptions } from './bridgeOptions';
import type { RouteDecl, RouteServices } from './api/http/routeTable';
import { approvalRunner } from './api/http/approvalRunner';
import { buildGuide } from './api/system/guide';
import { apiFingerprint, listedRoutes } from './api/system/routeFingerprint';
import { StudySets } from './domain/library/studySets';
import { insertRootCard } from './domain/cards/rows/cardRowsInsert';
import { StudySetDocuments } from './domain/cards/studySetDocuments';
import { DEFAULT_WINDOWS, LibrarySearch } from './domain/library/librarySearch';
import { rebuildCardIndex } from './domain/cards/cardIndexRebuild';
import { Decks } from './domain/library/decks';
import { DocumentCatalogue } from './domain/library/documentCatalogue';
import { ExtractionScheduler } from './domain/library/extractionScheduler';
import { PageReader } from './domain/library/pageReader';
import { ExportSlot } from './domain/library/exportSlot';
import { DocumentReader } from './domain/library/documentReader';
import { adoptOrphans } from './domain/library/startupSweep';
import { renderOpeningPicture } from './domain/library/openingPictures';
import { BundleService } from './domain/bundles/bundleService';
import { BundlePrepareJob } from './domain/bundles/bundlePrepareJob';
import { SnapshotFiles } from './domain/cards/snapshotFiles';
import { moveSnapshotsToFiles } from './domain/cards/snapshotMigration';
import { AccessCodes } from './domain/security/accessCodes';
import { loadCodeKey } from './domain/security/codeKey';
import { TokenRegistry } from './domain/security/tokens';
import { MemoryUiHost } from './domain/ui/uiHost';
import { LegacySync } from './domain/sync/legacySyncService';
import { UiStateService } from './domain/ui/uiStateService';
import { LibraryEvents } from './domain/events/libraryEvents';
import { ApprovalService } from './domain/approvals/approvalService';
import { CardLengths } from './ground/search/cardLengths';
import { CommonTerms } from './ground/search/commonTerms';
import { BookTextIndex } from './ground/search/bookTextIndex';
import { warmBookIndex } from './ground/search/bookIndexWarmup';
import { ExtractionPool } from './ground/pdf/extractionPool';
import { PageCache } from './ground/cache/pageCache';
import { sweepReaderPictures } from './ground/cache/readerPictures';
import { migratePagesToCache } from './ground/cache/pageMigration';
import type { Store } from './ground/store/store';
import { StorageMonitor } from './ground/store/storageMonitor';

/**
 * Brings an older data dir up to date on an open store, and returns where snapshot contents live.
 * Snapshot contents, page text, items and outlines moved out of library.db (test/api/snapshotFiles.test.ts,
 * test/api/pageCacheMigration.test.ts); once they did, the file shrinks to the cards.
 */
export async function migrateDataDir(store: Store, dataDir: string): Promise<SnapshotFiles> {
  const snapshotFiles = SnapshotFiles.of(dataDir);
  const movedSnapshots = await moveSnapshotsToFiles(store, snapshotFiles);
  const movedPages = await migratePagesToCache(store, dataDir);
  if (movedSnapshots.moved + movedPages.pages + movedPages.documents > 0) await store.compact();
  await rebuildCardIndex(store); // card index rows written with other terms (before schema 9) or oldest first
  // A book deleted while this bridge was not running (or by another one) leaves no picture of its pages.
  const held = new Set(store.all<{ bookmd5: string }>('SELECT bookmd5 FROM documents').map((r) => r.bookmd5));
  sweepReaderPictures(dataDir, (md5) => held.has(md5));
  return snapshotFiles;
}

export function bridgeConfig(options: BridgeOptions): BridgeConfig {
  const dataDir = options.dataDir;
  return {
    dataDir,
    exportFolder: options.exportFolder ?? dataDir,
    libraryDir: join(dataDir, 'library'),
    importFolders: options.importFolders ?? defaultImportFolders(),
    limits: { ...defaultLimits, ...options.limits },
  };
}

/** What buildServices needs besides the options: made by createBridge before it. */
export interface ServiceInputs {
  options: BridgeOptions;
  routes: readonly RouteDecl[];
  store: Store;
  config: BridgeConfig;
  snapshotFiles: SnapshotFiles;
  instanceNonce: string;
  /** Aborted when the bridge closes: long polls, event streams and watchers end on it. */
  closing: AbortSignal;
  baseUrl: () => string;
  warnings: string[];
  /** Once disk space is back after running out. */
  onSpaceBack: () => void;
}

/** Document-text search: per-book index files; a book becomes ready only once indexed. */
function readingParts(store: Store, config: BridgeConfig, options: BridgeOptions) {
  const dataDir = config.dataDir;
  const documents = new DocumentCatalogue(store, config.libraryDir);
  const pool = new ExtractionPool({ size: 2 });
  const pageCache = new PageCache(join(dataDir, 'cache', 'pages'));
  const bookIndex: BookTextIndex = new BookTextIndex({
    dir: join(dataDir, 'cache', 'text-index'),
    pageTexts: (md5) => pages.pageTexts(md5, 1, documents.get(md5).page_count),
  });
  const extraction = new ExtractionScheduler(documents, pool, pageCache, {
    onExtracted: (md5, texts) => bookIndex.indexBook(md5, texts),
    onStarted: options.openingPictures ? (md5, file) => void renderOpeningPicture(pool, dataDir, md5, file) : undefined,
  });
  const pages = new PageReader(documents, extraction, pageCache, pool);
  return { documents, pool, pageCache, bookIndex, extraction, pages };
}

/** RouteServices as built here: its storage (optional in RouteServices) is always there. */
export type BuiltServices = RouteServices & { storage: StorageMonitor };

export async function buildServices(inp: ServiceInputs): Promise<BuiltServices> {
  const { options, routes, store, config, closing } = inp;
  const { documents, pool, pageCache, bookIndex, extraction, pages } = readingParts(store, config, options);
  const studySets = new StudySets(store, insertRootCard);
  const ui = options.ui ?? new MemoryUiHost();
  const bundles = new BundleService(store, config, pages, ui);
  const storage = new StorageMonitor(config.dataDir, inp.onSpaceBack);
  const secretKey = loadCodeKey(config.dataDir);
  const tokens = await TokenRegistry.load(config.dataDir, store, secretKey);
  return {
    config,
    store,
    ui,
    entitlements: options.entitlements ?? staticEntitlements(options.premium ?? true),
    tokens,
    codes: new AccessCodes(store, config.limits, secretKey),
    studySets,
    studySetDocuments: new StudySetDocuments(store, studySets, documents, inp.snapshotFiles),
    snapshotFiles: inp.snapshotFiles,
    storage,
    search: new LibrarySearch(
      store,
      { index: bookIndex, pageTexts: (md5, start, end) => pages.pageTexts(md5, start, end) },
      DEFAULT_WINDOWS,
      { common: new CommonTerms(store), lengths: new CardLengths(store) },
    ),
    bookIndex,
    decks: new Decks(store),
    documents,
    extraction,
    pages,
    pool,
    pageCache,
    exportSlot: new ExportSlot(),
    documentReader: new DocumentReader(documents, extraction, pages),
    bundles,
    bundlePrepare: new BundlePrepareJob(store, documents, extraction, pages, bundles.runner, bundles),
    uiState: new UiStateService({ store, ui, closing }),
    legacySync: new LegacySync({ store, config, closing }),
    events: new LibraryEvents(store, config.limits.eventRingSize),
    approvals: new ApprovalService(
      store,
      options.approvals ?? 'never',
      config.limits.approvalTtlMs,
      join(config.dataDir, 'approvals'),
    ),
    routes,
    routeSummary: { apiFingerprint: apiFingerprint(routes), routeCount: listedRoutes(routes).length },
    closing,
    instanceNonce: inp.instanceNonce,
    guide: buildGuide(routes, { importFolders: config.importFolders }),
    baseUrl: inp.baseUrl,
    warnings: inp.warnings,
  };
}

/** Before the first request: the book index opened, and what a stopped run left unfinished picked up again. */
export async function resumeWork(services: RouteServices, routes: readonly RouteDecl[]): Promise<void> {
  const { store, bookIndex, config, documents, pool, pageCache } = services;
  const readyBooks = store
    .all<{ bookmd5: string }>(
      `SELECT bookmd5 FROM documents WHERE extraction_state = 'ready' ORDER BY added_at DESC, rowid DESC`,
    )
    .map((r) => r.bookmd5);
  await bookIndex.open(readyBooks);
  void warmBookIndex(bookIndex, readyBooks, services.closing); // newest first, as a search reads them
  await adoptOrphans({ config, documents, pool, pageCache }); // PDFs renamed in by an upload whose row never committed
  services.extraction.resumeUnfinished();
  await services.bundlePrepare.recover(); // interrupted prepares → failed
  services.approvals.setRunner(approvalRunner(routes, services));
  await services.approvals.recover(); // allowed calls a stop cut short → interrupted; pending ones expire on time
  services.legacySync.watcher.start(); // library watcher; stops on shutdown.abort()
}
