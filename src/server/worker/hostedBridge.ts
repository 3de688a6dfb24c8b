import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import type { Bridge, BridgeOptions } from '../bridge';
import type { CheckpointResult } from './protocol';
import type { CodeCacheState } from '../ground/threads/codeCache';
import { claimDataDir } from './threadClaims';

/** A bridge this window hosts, wherever it runs: what BridgeHost needs of it. */
export interface HostedBridge {
  baseUrl: string;
  port: number;
  token: string;
  instanceNonce: string;
  /** Where the HTTP server and the store run. */
  thread: 'worker' | 'main';
  /** threadId of that thread (0: the main thread). */
  threadId: number;
  /** A worker that loaded the server through V8's code cache says how that went (threads/codeCache.ts). */
  codeCache?: CodeCacheState;
  /** Folds the journal into library.db now (the event-loop test asks for one). */
  checkpoint(): Promise<CheckpointResult>;
  /**
   * Finishes in-flight requests, checkpoints, removes bridge.json, releases the lock (`keepLock`: see Bridge.close).
   * `within`: in a worker, the thread is ended after that many ms however far the close got (VS Code closing); a cut
   * checkpoint loses nothing acknowledged, the next start replays the journal.
   */
  close(opts?: { keepLock?: boolean; within?: number }): Promise<void>;
}

/**
 * Where the server module is: dist/bridgeWorker.js beside the bundle, or
 * src/server/worker/bridgeWorker.ts when run from source (tsx). A computed
 * path, so esbuild does not copy the server into the extension's bundle.
 */
export function bridgeModulePath(): string {
  const ts = path.join(__dirname, 'bridgeWorker.ts');
  if (__filename.endsWith('.ts') && existsSync(ts)) return ts;
  return path.join(__dirname, 'bridgeWorker.js');
}

/** createBridge, loaded on first use (the main-thread mode only). */
function loadCreateBridge(): typeof import('../bridge').createBridge {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(bridgeModulePath()) as typeof import('../bridge')).createBridge;
}

/** Hosts the bridge on this (main) thread: createBridge loaded on first use. */
export async function startInProcessBridge(options: BridgeOptions): Promise<HostedBridge> {
  const release = claimDataDir(options.dataDir);
  try {
    const bridge = await loadCreateBridge()(options);
    return inProcess(bridge, release);
  } catch (err) {
    release();
    throw err;
  }
}

function inProcess(bridge: Bridge, release: () => void): HostedBridge {
  return {
    baseUrl: bridge.baseUrl,
    port: bridge.port,
    token: bridge.token,
    instanceNonce: bridge.instanceNonce,
    thread: 'main',
    threadId,
    async checkpoint() {
      const t0 = performance.now();
      await bridge.services.store.checkpoint();
      return { ms: performance.now() - t0, threadId };
    },
    close: (opts) => bridge.close(opts).finally(release),
  };
}
