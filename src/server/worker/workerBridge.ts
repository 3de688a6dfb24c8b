import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../ground/threads/workerScript';
import type { RequestLogEntry } from '../api/http/app';
import type { UiHost } from '../domain/ui/uiHost';
import type { HostedBridge } from './hostedBridge';
import { claimDataDir, dropKeptLock } from './threadClaims';
import { removeDiscovery } from '../discovery';
import {
  fromWire,
  toWire,
  type BridgeWorkerData,
  type CheckpointResult,
  type FromWorker,
  OPTIONAL_UI_METHODS,
  type OptionalUiMethod,
  type ToWorker,
  type WorkerBridgeOptions,
} from './protocol';

/** How long a close may take (checkpoint included) before the worker is ended anyway, unless the caller says `within`. */
const CLOSE_TIMEOUT_MS = 30_000;

export interface WorkerBridgeStart extends WorkerBridgeOptions {
  /** The window's UI; its calls arrive as messages and are answered here. */
  ui?: UiHost;
  onRequest?: (e: RequestLogEntry) => void;
  /** Unexpected errors in the worker (the 500s, stray rejections), with their stacks. */
  onError?: (e: Error) => void;
  /** The worker stopped without being asked to (it crashed): the bridge is gone. */
  onExit?: (e: Error) => void;
}

/** One bridge's life inside the worker: from `start` to `closed` (or the worker's exit). */
interface Session {
  worker: Worker;
  opts: WorkerBridgeStart;
  release: () => void;
  ready: boolean;
  /** The running bridge's, once ready: what its bridge.json says, so a cut close can remove it. */
  instanceNonce?: string;
  closeRequested: boolean;
  started?: { resolve: (b: HostedBridge) => void; reject: (e: Error) => void };
  closed?: { resolve: () => void; reject: (e: Error) => void };
  checkpoints: Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>;
}

/**
 * The main thread's side of the bridge's worker thread. The thread outlives
 * the bridges it runs: `close` ends a bridge and leaves the thread idle with
 * its server bundle and sql.js already loaded, so a restart only reopens the
 * store (docs/ARCHITECTURE.md, "Threads"). `dispose` ends it.
 */
export class BridgeWorkerThread {
  private worker: Worker | undefined;
  private session: Session | undefined;
  private nextCheckpoint = 1;

  /** Threads started so far (a restart that reused the idle one adds none). */
  threadsStarted = 0;

  /** `codeCacheDir`: where the thread keeps V8's code cache of the server bundle (threads/codeCache.ts); none, none kept. */
  constructor(private readonly opts: { codeCacheDir?: string } = {}) {}

  /** Starts a bridge in the thread (starting the thread when there is none); resolves once it listens. */
  start(opts: WorkerBridgeStart): Promise<HostedBridge> {
    if (this.session) return Promise.reject(new Error('the bridge thread already runs a bridge: close it first'));
    let release: () => void;
    try {
      release = claimDataDir(opts.dataDir);
    } catch (err) {
      return Promise.reject(err);
    }
    const { ui, onRequest: _r, onError: _e, onExit: _x, ...options } = opts;
    const uiMethods: OptionalUiMethod[] = OPTIONAL_UI_METHODS.filter((m) => typeof ui?.[m] === 'function');
    const reuse = this.worker;
    const worker = reuse ?? this.spawn({ kind: 'study-bridge-worker', options, uiMethods });
    const session: Session = { worker, opts, release, ready: false, closeRequested: false, checkpoints: new Map() };
    this.session = session;
    const started = new Promise<HostedBridge>((resolve, reject) => (session.started = { resolve, reject }));
    if (reuse) this.send({ type: 'start', options, uiMethods });
    return started;
  }

  /** Ends the thread (and whatever bridge it still runs, without its checkpoint: close the bridge first). */
  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private spawn(data: BridgeWorkerData): Worker {
    const { script, eval: isEval, cached } = workerSource(this.opts.codeCacheDir);
    const workerData: BridgeWorkerData = cached ? { ...data, codeCacheDir: this.opts.codeCacheDir } : data;
    const worker = new Worker(script, { eval: isEval, workerData, name: 'study-bridge' });
    this.worker = worker;
    this.threadsStarted++;
    // A thread being ended may still deliver messages: they belong to its own session only.
    const own = () => (this.session?.worker === worker ? this.session : undefined);
    worker.on('message', (msg: FromWorker) => {
      const s = own();
      if (s) this.receive(s, msg);
    });
    worker.on('error', (err) => own()?.opts.onError?.(err));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const s = this.session;
      if (s?.worker !== worker) return;
      this.session = undefined;
      s.release(); // the worker is gone, so is its hold on the data dir (a lock file it left is stale now)
      const err = new Error(`the bridge worker stopped (exit code ${code})`);
      for (const c of s.checkpoints.values()) c.reject(err);
      s.checkpoints.clear();
      if (s.started) s.started.reject(err);
      else if (s.ready && !s.closeRequested) s.opts.onExit?.(err);
      s.closed?.reject(err);
    });
    return worker;
  }

  private send(msg: ToWorker): void {
    this.worker?.postMessage(msg);
  }

  private receive(s: Session, msg: FromWorker): void {
    switch (msg.type) {
      case 'ui':
        void this.answerUi(s, msg.id, msg.method, msg.args);
        return;
      case 'request':
        s.opts.onRequest?.(msg.entry);
        return;
      case 'internal-error':
        s.opts.onError?.(fromWire(msg.error));
        return;
      case 'checkpoint-result': {
        const c = s.checkpoints.get(msg.id);
        s.checkpoints.delete(msg.id);
        if (msg.ok) c?.resolve(msg.result);
        else c?.reject(fromWire(msg.error));
        return;
      }
      case 'ready': {
        const { type: _type, ...info } = msg;
        s.ready = true;
        s.instanceNonce = info.instanceNonce;
        s.started?.resolve({
          ...info,
          thread: 'worker',
          checkpoint: () =>
            new Promise<CheckpointResult>((resolve, reject) => {
              const id = this.nextCheckpoint++;
              s.checkpoints.set(id, { resolve, reject });
              this.send({ type: 'checkpoint', id });
            }),
          close: onceOnly((o) => this.close(s, o)),
        });
        s.started = undefined;
        return;
      }
      case 'start-error': {
        // A thread whose start failed half-way is not trusted with the next one.
        this.session = undefined;
        s.release();
        s.started?.reject(fromWire(msg.error));
        s.started = undefined;
        void this.dispose();
        return;
      }
      case 'closed':
        s.closed?.resolve();
        return;
      case 'close-error':
        s.closed?.reject(fromWire(msg.error));
        return;
    }
  }

  private async answerUi(s: Session, id: number, method: string, args: unknown[]): Promise<void> {
    try {
      const fn = (s.opts.ui as unknown as Record<string, ((...a: unknown[]) => unknown) | undefined> | undefined)?.[
        method
      ];
      if (typeof fn !== 'function') throw new Error(`the window has no UI method ${method}`);
      const value = await fn.apply(s.opts.ui, args);
      this.send({ type: 'ui-result', id, ok: true, value });
    } catch (err) {
      this.send({ type: 'ui-result', id, ok: false, error: toWire(err) });
    }
  }

  private async close(s: Session, opts?: { keepLock?: boolean; within?: number }): Promise<void> {
    s.closeRequested = true;
    const done = new Promise<void>((resolve, reject) => (s.closed = { resolve, reject }));
    const limit = opts?.within ?? CLOSE_TIMEOUT_MS;
    const timer = setTimeout(
      () => s.closed?.reject(new Error(`the bridge worker did not close within ${limit} ms`)),
      limit,
    );
    this.send({ type: 'close', keepLock: opts?.keepLock });
    let cut = false;
    try {
      await done;
    } catch (err) {
      cut = true;
      await this.dispose(); // a thread that did not close its bridge cleanly is not reused
      throw err;
    } finally {
      clearTimeout(timer);
      if (this.session === s) {
        this.session = undefined;
        s.release();
      }
      if (cut) this.afterCutClose(s, opts?.keepLock);
    }
  }

  /**
   * The thread was ended before its close got to the end, where bridge.json and library.lock go: do it here, as the
   * thread can no longer write (its journal holds every acknowledged write, as after a crash), so other windows and
   * agents see at once that no bridge serves the data dir rather than a dead URL and a held lock.
   */
  private afterCutClose(s: Session, keepLock: boolean | undefined): void {
    const { dataDir } = s.opts;
    if (s.instanceNonce) removeDiscovery(dataDir, s.instanceNonce);
    if (!keepLock) dropKeptLock(dataDir);
  }
}

/** A bridge in a thread of its own that ends with it (tests, and any one-shot host). */
export async function startWorkerBridge(opts: WorkerBridgeStart): Promise<HostedBridge> {
  const thread = new BridgeWorkerThread();
  const bridge = await thread.start(opts);
  return { ...bridge, close: onceOnly((o) => bridge.close(o).finally(() => thread.dispose())) };
}

function onceOnly<A, R>(fn: (a: A) => Promise<R>): (a: A) => Promise<R> {
  let first: Promise<R> | undefined;
  return (a) => (first ??= fn(a));
}

/**
 * dist/bridgeWorker.js from the bundle (through dist/bridgeBoot.js when a code cache is kept);
 * bridgeWorker.ts through tsx's bootstrap from source (threads/workerScript.ts), where there is no bundle to cache.
 */
function workerSource(codeCacheDir: string | undefined): { script: string; eval: boolean; cached: boolean } {
  const plain = workerScript(path.join(__dirname, 'bridgeWorker.ts'), 'bridgeWorker.js');
  if (!codeCacheDir || plain.eval) return { ...plain, cached: false };
  return { script: path.join(__dirname, 'bridgeBoot.js'), eval: false, cached: true };
}
