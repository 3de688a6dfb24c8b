import { Worker } from 'node:worker_threads';
import type { RequestLogEntry } from '../http/app';
import type { UiHost } from '../ui/uiHost';
import { bridgeModulePath, type HostedBridge } from './hostedBridge';
import { claimDataDir } from './threadClaims';
import { fromWire, toWire, type BridgeWorkerData, type CheckpointResult, type FromWorker, type OptionalUiMethod, type ToWorker, type WorkerBridgeOptions } from './protocol';

/** How long a close may take (checkpoint included) before the worker is ended anyway. */
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

/**
 * The main thread's side of a bridge running in a worker thread: starts it,
 * serves its UiHost calls, and resolves once it listens (or rejects with the
 * start error, its `code` kept, e.g. DATA_DIR_LOCKED).
 */
export function startWorkerBridge(opts: WorkerBridgeStart): Promise<HostedBridge> {
  const { ui, onRequest, onError, onExit, ...options } = opts;
  let release: () => void;
  try {
    release = claimDataDir(options.dataDir);
  } catch (err) {
    return Promise.reject(err);
  }
  const uiMethods = (['judgeUiKey', 'applyUiState', 'liveUiState', 'askAnkiConnectPermission'] as const).filter((m) => typeof ui?.[m] === 'function') as OptionalUiMethod[];
  const workerData: BridgeWorkerData = { kind: 'study-bridge-worker', options, uiMethods };
  const { script, eval: isEval } = workerSource();
  const worker = new Worker(script, { eval: isEval, workerData, name: 'study-bridge' });
  const send = (msg: ToWorker) => worker.postMessage(msg);

  let nextCheckpoint = 1;
  const checkpoints = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  let ready = false;
  let closeRequested = false;
  let closed: { resolve: () => void; reject: (e: Error) => void } | undefined;
  let started: { resolve: (b: HostedBridge) => void; reject: (e: Error) => void } | undefined;

  const answerUi = async (id: number, method: string, args: unknown[]) => {
    try {
      const fn = (ui as unknown as Record<string, ((...a: unknown[]) => unknown) | undefined> | undefined)?.[method];
      if (typeof fn !== 'function') throw new Error(`the window has no UI method ${method}`);
      const value = await fn.apply(ui, args);
      send({ type: 'ui-result', id, ok: true, value });
    } catch (err) {
      send({ type: 'ui-result', id, ok: false, error: toWire(err) });
    }
  };

  worker.on('message', (msg: FromWorker) => {
    switch (msg.type) {
      case 'ui':
        void answerUi(msg.id, msg.method, msg.args);
        return;
      case 'request':
        onRequest?.(msg.entry);
        return;
      case 'internal-error':
        onError?.(fromWire(msg.error));
        return;
      case 'checkpoint-result': {
        const c = checkpoints.get(msg.id);
        checkpoints.delete(msg.id);
        if (msg.ok) c?.resolve(msg.result);
        else c?.reject(fromWire(msg.error));
        return;
      }
      case 'ready': {
        const { type: _type, ...info } = msg;
        ready = true;
        started?.resolve({
          ...info,
          thread: 'worker',
          checkpoint: () =>
            new Promise<CheckpointResult>((resolve, reject) => {
              const id = nextCheckpoint++;
              checkpoints.set(id, { resolve, reject });
              send({ type: 'checkpoint', id });
            }),
          close,
        });
        started = undefined;
        return;
      }
      case 'start-error':
        started?.reject(fromWire(msg.error));
        started = undefined;
        void worker.terminate();
        return;
      case 'closed':
        closed?.resolve();
        return;
      case 'close-error':
        closed?.reject(fromWire(msg.error));
        return;
    }
  });
  worker.on('error', (err) => onError?.(err));
  worker.on('exit', (code) => {
    release(); // the worker is gone, so is its hold on the data dir (a lock file it left is stale now)
    const err = new Error(`the bridge worker stopped (exit code ${code})`);
    for (const c of checkpoints.values()) c.reject(err);
    checkpoints.clear();
    if (started) {
      started.reject(err);
      started = undefined;
    } else if (ready && !closeRequested) onExit?.(err);
    closed?.reject(err);
  });

  let closing: Promise<void> | undefined;
  function close(opts?: { keepLock?: boolean }): Promise<void> {
    return (closing ??= (async () => {
      closeRequested = true;
      const done = new Promise<void>((resolve, reject) => (closed = { resolve, reject }));
      const timer = setTimeout(() => closed?.reject(new Error(`the bridge worker did not close within ${CLOSE_TIMEOUT_MS} ms`)), CLOSE_TIMEOUT_MS);
      send({ type: 'close', keepLock: opts?.keepLock });
      try {
        await done;
      } finally {
        clearTimeout(timer);
        await worker.terminate();
      }
    })());
  }

  return new Promise<HostedBridge>((resolve, reject) => (started = { resolve, reject }));
}

/**
 * From the bundle: dist/bridgeWorker.js. Under tsx (tests) tsx's hooks do not
 * reach worker threads on Node 20: a one-line bootstrap registers them first.
 */
function workerSource(): { script: string; eval: boolean } {
  const file = bridgeModulePath();
  if (!file.endsWith('.ts')) return { script: file, eval: false };
  const api = require.resolve('tsx/cjs/api');
  return { script: `require(${JSON.stringify(api)}).register();\nrequire(${JSON.stringify(file)});`, eval: true };
}
