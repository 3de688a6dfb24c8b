import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setMaxListeners } from 'node:events';
import { removeDiscovery, writeDiscovery } from './discovery';
import { BridgeError, insufficientStorage, isNoSpace } from './errors';
import type { Bridge, BridgeOptions } from './bridgeOptions';
import { bridgeConfig, buildServices, migrateDataDir, resumeWork, type BuiltServices } from './bridgeServices';
import { API_PREFIX, createHttpApp } from './api/http/app';
import type { RouteDecl, RouteServices } from './api/http/routeTable';
import { allRoutes } from './api/routes';
import { startAnkiConnect } from './api/ankiconnect/ankiConnect';
import type { AnkiServer } from './api/ankiconnect/ankiServer';
import { repairDeckCounters } from './domain/decks/counterRepair';
import { sweepLeftovers } from './domain/library/startupSweep';
import { makeDataDirPrivate } from './domain/security/privateDataDir';
import { acquireDataDirLock, type DataDirLock } from './ground/store/lock';
import { Store } from './ground/store/store';
import { storeDamage } from './ground/store/storeDamage';
import { asNoSpace, freeBytes } from './ground/store/diskSpace';
import { SERVER_VERSION } from './version';
import { probeCanvas, rendererMessage } from './ground/pdf/nativeCanvas';

export type { Bridge, BridgeOptions } from './bridgeOptions';

export const DEFAULT_PORT = 42380;
export const LAST_DEFAULT_PORT = 42399;

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

const warn = (warnings: string[], message: string) => {
  warnings.push(message);
  process.stderr.write(`study-bridge: warning: ${message}\n`);
};

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
    store = await Store.open(dataDir, options.store).catch((e: unknown) => {
      throw storeDamage(e, dataDir);
    });
    const snapshotFiles = await migrateDataDir(store, dataDir);
    const config = bridgeConfig(options);
    tolerateNoSpace(() => mkdirSync(config.libraryDir, { recursive: true, mode: 0o700 })); // an upload makes it too
    const instanceNonce = randomBytes(12).toString('hex');
    const shutdown = new AbortController();
    setMaxListeners(0, shutdown.signal); // every open long poll and event stream waits on it: no leak warning past 10
    const at: Listening = { port: 0 };
    const baseUrl = () => `http://127.0.0.1:${at.port}${API_PREFIX}`;
    const publish = discoveryPublisher(options, instanceNonce, shutdown.signal, at);
    const services: BuiltServices = await buildServices({
      ...{ options, routes, store, config, snapshotFiles, instanceNonce, baseUrl, warnings: privacy.warnings },
      closing: shutdown.signal,
      // Once space is back: what start-up could not write, and prepares whose 'failed' was refused.
      onSpaceBack: () => {
        publish();
        void services.bundlePrepare.failStale().catch(() => undefined);
      },
    });
    // Where the native canvas does not load, /status says what cannot be drawn (PDF text works without it).
    void probeCanvas().then((why) => why !== undefined && warn(services.warnings, rendererMessage(why)));
    // Deck counters a hand edit or an older build left wrong are rebuilt before /due or /stats reads them.
    const counters = await repairDeckCounters(store);
    if (counters) warn(services.warnings, counters);
    await resumeWork(services, routes);
    const server = await serve(options, routes, services, at);
    publish();
    services.storage.status(); // on a full disk: starts watching for space to come back
    const close = closer({ shutdown, services, server, at, lock, dataDir, instanceNonce });
    return {
      baseUrl: baseUrl(),
      port: at.port,
      token: services.tokens.mainToken,
      instanceNonce,
      dataDir,
      services,
      close,
      ...(at.anki ? { ankiConnectPort: at.anki.port } : {}),
    };
  } catch (e) {
    await store?.close().catch(() => undefined);
    lock.release();
    // What start-up cannot do without space (a new token, a schema upgrade): a clear message, not a stack.
    throw asNoSpace(e, 'Starting the bridge', dataDir);
  }
}

/** Where the bridge listens, once it does. */
interface Listening {
  port: number;
  anki?: AnkiServer;
}

/** Writes bridge.json once: it cannot be written on a full disk, so the bridge serves anyway and publishes once space is back. */
function discoveryPublisher(options: BridgeOptions, instanceNonce: string, closing: AbortSignal, at: Listening) {
  const dataDir = options.dataDir;
  let published = false;
  return () => {
    if (published || closing.aborted) return;
    try {
      writeDiscovery(dataDir, {
        baseUrl: `http://127.0.0.1:${at.port}${API_PREFIX}`,
        port: at.port,
        pid: process.pid,
        instanceNonce,
        version: SERVER_VERSION,
        ...(at.anki ? { ankiConnectPort: at.anki.port } : {}),
      });
      published = true;
    } catch (e) {
      if (!isNoSpace(e)) throw e;
      options.onError?.(insufficientStorage('Writing bridge.json', freeBytes(dataDir), { file: 'bridge.json' }));
    }
  };
}

/** The HTTP server on loopback, and AnkiConnect's beside it when asked for. */
async function serve(
  options: BridgeOptions,
  routes: readonly RouteDecl[],
  services: RouteServices,
  at: Listening,
): Promise<Server> {
  const app = createHttpApp(routes, services, {
    port: () => at.port,
    onRequest: options.onRequest,
    onInternalError: options.onError,
  });
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 5000;
  at.port = await listen(server, options.port);
  // Koa's body setter tests `instanceof Response`, and Node loads its fetch classes on that first touch
  // (~60 ms): done once the bridge listens, so no agent's first answer pays for it.
  setImmediate(() => void globalThis.Response);
  if (options.ankiConnect) {
    // A port already taken (Anki itself runs on 8765) must not keep the library from being served: a warning says why.
    try {
      at.anki = await startAnkiConnect(options.ankiConnect, services, options.onError);
    } catch (e) {
      if (!(e instanceof BridgeError)) throw e;
      services.warnings.push(e.message);
      process.stderr.write(`study-bridge: warning: ${e.message}\n`);
    }
  }
  return server;
}

interface Running {
  shutdown: AbortController;
  services: BuiltServices;
  server: Server;
  at: Listening;
  lock: DataDirLock;
  dataDir: string;
  instanceNonce: string;
}

/** Bridge.close: once, however often called. */
function closer(r: Running): Bridge['close'] {
  const { services, server } = r;
  let closing: Promise<void> | undefined;
  return (opts?: { keepLock?: boolean }) =>
    (closing ??= (async () => {
      r.shutdown.abort(); // also ends the open GET /events streams
      services.store.stopSlicedWrites(); // an import in steps rolls back rather than holding the stop
      services.storage.close();
      // Both ports at once: a running request gets one second to answer, so a stop is honoured within two.
      await Promise.all([
        r.at.anki?.close(),
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        }),
      ]);
      await services.extraction.close();
      await services.tokens.flush();
      services.approvals.close();
      services.events.close();
      await services.store.close();
      removeDiscovery(r.dataDir, r.instanceNonce);
      r.lock.release({ keepFile: opts?.keepLock });
    })());
}
