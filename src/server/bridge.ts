import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { defaultImportFolders, defaultLimits, type BridgeConfig, type BridgeLimits } from './config';
import { removeDiscovery, writeDiscovery } from './discovery';
import { staticEntitlements, type Entitlements } from './entitlements';
import { BridgeError, insufficientStorage, isNoSpace } from './errors';
import { API_PREFIX, createHttpApp, type RequestLogEntry } from './api/http/app';
import type { RouteDecl, RouteServices } from './api/http/routeTable';
import { StudySets } from './domain/library/studySets';
import { StudySetDocuments } from './domain/cards/studySetDocuments';
import { DEFAULT_WINDOWS, LibrarySearch } from './domain/library/librarySearch';
import { CardLengths } from './ground/search/cardLengths';
import { CommonTerms } from './ground/search/commonTerms';
import { BookTextIndex } from './ground/search/bookTextIndex';
import { warmBookIndex } from './ground/search/bookIndexWarmup';
import { rebuildCardIndex } from './domain/cards/cardIndexRebuild';
import { Decks } from './domain/library/decks';
import { DocumentCatalogue } from './domain/library/documentCatalogue';
import { ExtractionScheduler } from './domain/library/extractionScheduler';
import { PageReader } from './domain/library/pageReader';
import { ExportSlot } from './domain/library/exportSlot';
import { ExtractionPool } from './ground/pdf/extractionPool';
import { PageCache } from './ground/cache/pageCache';
import { DocumentReader } from './domain/library/documentReader';
import { adoptOrphans, sweepLeftovers } from './domain/library/startupSweep';
import { sweepReaderPictures } from './ground/cache/readerPictures';
import { renderOpeningPicture } from './domain/library/openingPictures';
import { migratePagesToCache } from './ground/cache/pageMigration';
import { BundleService } from './domain/bundles/bundleService';
import { BundlePrepareJob } from './domain/bundles/bundlePrepareJob';
import { SnapshotFiles } from './domain/cards/snapshotFiles';
import { moveSnapshotsToFiles } from './domain/cards/snapshotMigration';
import { allRoutes } from './api/routes';
import { AccessCodes } from './domain/security/accessCodes';
import { loadCodeKey } from './domain/security/codeKey';
import { makeDataDirPrivate } from './domain/security/privateDataDir';
import { TokenRegistry } from './domain/security/tokens';
import { acquireDataDirLock } from './ground/store/lock';
import { Store, type StoreOptions } from './ground/store/store';
import { buildGuide } from './api/system/guide';
import { apiFingerprint, listedRoutes } from './api/system/routeFingerprint';
import { MemoryUiHost, type UiHost } from './domain/ui/uiHost';
import { LegacySync } from './domain/sync/legacySyncService';
import { UiStateService } from './domain/ui/uiStateService';
import { SERVER_VERSION } from './version';
import { StorageMonitor } from './ground/store/storageMonitor';
import { asNoSpace, freeBytes } from './ground/store/diskSpace';
import { LibraryEvents } from './domain/events/libraryEvents';
import { setMaxListeners } from 'node:events';
import { startAnkiConnect } from './api/ankiconnect/ankiConnect';
import type { AnkiServer } from './api/ankiconnect/ankiServer';
import { ApprovalService, type ApprovalPolicy } from './domain/approvals/approvalService';
import { approvalRunner } from './api/http/approvalRunner';

export const DEFAULT_PORT = 42380;
export const LAST_DEFAULT_PORT = 42399;

export interface BridgeOptions {
  dataDir: string;
  /** undefined: 42380, else the next free one up to 42399. 0: any free port. */
  port?: number;
  /** Premium entitlement; default on (local edition). Ignored when `entitlements` is given. */
  premium?: boolean;
  entitlements?: Entitlements;
  exportFolder?: string;
  /** Folders PDFs may be imported from by path; default ~/Documents and ~/Downloads. */
  importFolders?: string[];
  ui?: UiHost;
  limits?: Partial<BridgeLimits>;
  store?: StoreOptions;
  /** Which agent calls wait for the person's approval; default 'never' (headless: CI and scripts keep working). */
  approvals?: ApprovalPolicy;
  /** Request log: method, path (no query), status, ms. Never tokens. */
  onRequest?: (e: RequestLogEntry) => void;
  /** Unexpected errors (the 500s), with their stacks, for the log. */
  onError?: (e: unknown) => void;
  /** Render each new book's first page as the reader's opening picture (library/openingPictures.ts); the extension's bridge does. */
  openingPictures?: boolean;
  /** Serve AnkiConnect's protocol on this loopback port too (0: any free port); off when undefined. */
  ankiConnect?: { port: number; allowedOrigins?: string[] };
}

export interface Bridge {
  baseUrl: string;
  port: number;
  token: string;
  instanceNonce: string;
  dataDir: string;
  services: RouteServices;
  /** The AnkiConnect port, when served. */
  ankiConnectPort?: number;
  /**
   * Finishes in-flight requests, checkpoints, removes bridge.json, releases the lock.
   * `keepLock`: this process starts the bridge again at once; no other process may take the data dir meanwhile.
   */
  close(opts?: { keepLock?: boolean }): Promise<void>;
}

async function listen(server: Server, port: number | undefined): Promise<number> {
  const candidates = port === undefined ? range(DEFAULT_PORT, LAST_DEFAULT_PORT) : [port];
  for (const p of candidates) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(p, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      return (server.address() as AddressInfo).port;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || candidates.length === 1) {
        throw new BridgeError('PORT_UNAVAILABLE', 500, `Cannot listen on 127.0.0.1:${p}: ${(e as Error).message}`);
      }
    }
  }
  throw new BridgeError(
    'PORT_UNAVAILABLE',
    500,
    `Ports ${DEFAULT_PORT}-${LAST_DEFAULT_PORT} are all taken; pass --port.`,
  );
}

/** Start-up writes that may fail on a full disk without stopping reads: the write that needs them answers 507 later. */
function tolerateNoSpace(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (!isNoSpace(e)) throw e;
  }
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** Builds the whole headless core on a data dir and starts serving it on loopback. */
export async function createBridge(options: BridgeOptions, routes: readonly RouteDecl[] = allRoutes): Promise<Bridge> {
  const dataDir = options.dataDir;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Other local users must not read the library: the dir is made 0700 (or a warning says why not).
  const privacy = makeDataDirPrivate(dataDir, options.exportFolder ?? dataDir);
  for (const w of privacy.warnings) process.stderr.write(`study-bridge: warning: ${w}\n`);
  const lock = acquireDataDirLock(dataDir);
  let store: Store | undefined;
  try {
    // Under the lock, before anything of this run writes: .part uploads and temp files a crash left
    // (a temp file is never part of the state; its rename is what commits it).
    sweepLeftovers(dataDir, join(dataDir, 'library'));
    store = await Store.open(dataDir, options.store);
    const snapshotFiles = SnapshotFiles.of(dataDir);
    // Data dirs from before issue 10: snapshot contents, page text, items and
    // outlines leave library.db; once they did, the file shrinks to the cards.
    const movedSnapshots = await moveSnapshotsToFiles(store, snapshotFiles);
    const movedPages = await migratePagesToCache(store, dataDir);
    if (movedSnapshots.moved + movedPages.pages + movedPages.documents > 0) await store.compact();
    await rebuildCardIndex(store); // card index rows written with other terms (before schema 9) or oldest first
    // A book deleted while this bridge was not running (or by another one) leaves no picture of its pages.
    const held = new Set(store.all<{ bookmd5: string }>('SELECT bookmd5 FROM documents').map((r) => r.bookmd5));
    sweepReaderPictures(dataDir, (md5) => held.has(md5));
    const config: BridgeConfig = {
      dataDir,
      exportFolder: options.exportFolder ?? dataDir,
      libraryDir: join(dataDir, 'library'),
      importFolders: options.importFolders ?? defaultImportFolders(),
      limits: { ...defaultLimits, ...options.limits },
    };
    tolerateNoSpace(() => mkdirSync(config.libraryDir, { recursive: true, mode: 0o700 })); // an upload makes it too
    const instanceNonce = randomBytes(12).toString('hex');
    // Document-text search: per-book index files; a book becomes ready only once indexed.
    const documents = new DocumentCatalogue(store, config.libraryDir);
    const pool = new ExtractionPool({ size: 2 });
    const pageCache = new PageCache(join(dataDir, 'cache', 'pages'));
    const bookIndex: BookTextIndex = new BookTextIndex({
      dir: join(dataDir, 'cache', 'text-index'),
      pageTexts: (md5) => pages.pageTexts(md5, 1, documents.get(md5).page_count),
    });
    const extraction = new ExtractionScheduler(documents, pool, pageCache, {
      onExtracted: (md5, texts) => bookIndex.indexBook(md5, texts),
      onStarted: options.openingPictures
        ? (md5, file) => void renderOpeningPicture(pool, dataDir, md5, file)
        : undefined,
    });
    const pages = new PageReader(documents, extraction, pageCache, pool);
    const studySets = new StudySets(store);
    const ui = options.ui ?? new MemoryUiHost();
    const bundles = new BundleService(store, config, pages, ui);
    const shutdown = new AbortController();
    setMaxListeners(0, shutdown.signal); // every open long poll and event stream waits on it: no leak warning past 10
    let port = 0;
    let anki: AnkiServer | undefined;
    const baseUrl = () => `http://127.0.0.1:${port}${API_PREFIX}`;
    // bridge.json cannot be written on a full disk: the bridge serves anyway, and publishes it once space is back.
    let published = false;
    const publish = () => {
      if (published || shutdown.signal.aborted) return;
      try {
        writeDiscovery(dataDir, {
          baseUrl: baseUrl(),
          port,
          pid: process.pid,
          instanceNonce,
          version: SERVER_VERSION,
          ...(anki ? { ankiConnectPort: anki.port } : {}),
        });
        published = true;
      } catch (e) {
        if (!isNoSpace(e)) throw e;
        options.onError?.(insufficientStorage('Writing bridge.json', freeBytes(dataDir), { file: 'bridge.json' }));
      }
    };
    // Once space is back: what start-up could not write, and prepares whose 'failed' was refused.
    const storage = new StorageMonitor(dataDir, () => {
      publish();
      void services.bundlePrepare.failStale().catch(() => undefined);
    });
    const secretKey = loadCodeKey(dataDir);
    const tokens = await TokenRegistry.load(dataDir, store, secretKey);
    const services: RouteServices = {
      config,
      store,
      ui,
      entitlements: options.entitlements ?? staticEntitlements(options.premium ?? true),
      tokens,
      codes: new AccessCodes(store, config.limits, secretKey),
      studySets,
      studySetDocuments: new StudySetDocuments(store, studySets, documents, snapshotFiles),
      snapshotFiles,
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
      uiState: new UiStateService({ store, ui, closing: shutdown.signal }),
      legacySync: new LegacySync({ store, config, closing: shutdown.signal }),
      events: new LibraryEvents(store, config.limits.eventRingSize),
      approvals: new ApprovalService(store, options.approvals ?? 'never', config.limits.approvalTtlMs),
      routes,
      routeSummary: { apiFingerprint: apiFingerprint(routes), routeCount: listedRoutes(routes).length },
      closing: shutdown.signal,
      instanceNonce,
      guide: buildGuide(routes),
      baseUrl,
      warnings: privacy.warnings,
    };
    const readyBooks = store
      .all<{ bookmd5: string }>(
        `SELECT bookmd5 FROM documents WHERE extraction_state = 'ready' ORDER BY added_at DESC, rowid DESC`,
      )
      .map((r) => r.bookmd5);
    await bookIndex.open(readyBooks);
    void warmBookIndex(bookIndex, readyBooks, shutdown.signal); // newest first, as a search reads them
    await adoptOrphans({ config, documents, pool, pageCache }); // PDFs renamed in by an upload whose row never committed
    extraction.resumeUnfinished();
    await services.bundlePrepare.recover(); // interrupted prepares → failed
    services.approvals.setRunner(approvalRunner(routes, services));
    await services.approvals.recover(); // allowed calls a stop cut short → interrupted; pending ones expire on time
    services.legacySync.watcher.start(); // library watcher; stops on shutdown.abort()
    const app = createHttpApp(routes, services, {
      port: () => port,
      onRequest: options.onRequest,
      onInternalError: options.onError,
    });
    const server = createServer(app.callback());
    server.keepAliveTimeout = 5000;
    port = await listen(server, options.port);
    // Koa's body setter tests `instanceof Response`, and Node loads its fetch classes on that first touch
    // (~60 ms): done once the bridge listens, so no agent's first answer pays for it.
    setImmediate(() => void globalThis.Response);
    if (options.ankiConnect) {
      // A port already taken (Anki itself runs on 8765) must not keep the library from being served: a warning says why.
      try {
        anki = await startAnkiConnect(options.ankiConnect, services, options.onError);
      } catch (e) {
        if (!(e instanceof BridgeError)) throw e;
        services.warnings.push(e.message);
        process.stderr.write(`study-bridge: warning: ${e.message}\n`);
      }
    }
    publish();
    storage.status(); // on a full disk: starts watching for space to come back

    let closing: Promise<void> | undefined;
    const openStore = store;
    const close = (opts?: { keepLock?: boolean }) =>
      (closing ??= (async () => {
        shutdown.abort(); // also ends the open GET /events streams
        storage.close();
        await anki?.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 5000).unref();
        });
        await extraction.close();
        await tokens.flush();
        services.approvals.close();
        services.events.close();
        await openStore.close();
        removeDiscovery(dataDir, instanceNonce);
        lock.release({ keepFile: opts?.keepLock });
      })());
    return {
      baseUrl: baseUrl(),
      port,
      token: services.tokens.mainToken,
      instanceNonce,
      dataDir,
      services,
      close,
      ...(anki ? { ankiConnectPort: anki.port } : {}),
    };
  } catch (e) {
    await store?.close().catch(() => undefined);
    lock.release();
    // What start-up cannot do without space (a new token, a schema upgrade): a clear message, not a stack.
    throw asNoSpace(e, 'Starting the bridge', dataDir);
  }
}
