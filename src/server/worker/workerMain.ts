import { getPriority, setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { threadId, type MessagePort } from 'node:worker_threads';
import { createBridge, type Bridge } from '../bridge';
import { recoveryLine } from '../ground/store/recoveryReport';
import { RemoteUiHost } from './remoteUiHost';
import type { CodeCacheState } from '../ground/threads/codeCache';
import { toWire, type BridgeWorkerData, type FromWorker, type ToWorker, type WorkerBridgeOptions } from './protocol';

/** What the thread's boot script (bridgeBoot.ts) adds: how it loaded the bundle, and what to do once the bridge listens. */
export interface WorkerBoot {
  codeCache?: CodeCacheState;
  afterFirstReady?: () => void;
}

/** The code cache is made this long after the first start: the code the views' first requests compiled is in it too. */
const CODE_CACHE_AFTER_MS = 3000;

/**
 * The bridge inside its worker thread: createBridge with the window's UI
 * behind a message proxy; answers `checkpoint` and `close` from the main
 * thread, relays the request log and unexpected errors to it. After `close`
 * the thread stays, idle, for the next `start` (a restart): the server code
 * and sql.js are loaded once per thread, not once per bridge.
 */
export function runBridgeWorker(port: MessagePort, data: BridgeWorkerData, boot: WorkerBoot = {}): void {
  yieldToTheWindow();
  const post = (msg: FromWorker) => port.postMessage(msg);
  let ui = new RemoteUiHost(post, data.uiMethods);
  let afterFirstReady = boot.afterFirstReady;
  let bridge: Bridge | undefined;
  // `close` comes only after `ready` (or a start error), and `start` only after `closed`.
  let closing: Promise<void> | undefined;

  // The extension host logs stray rejections instead of dying; so does this thread.
  process.on('unhandledRejection', (reason) => post({ type: 'internal-error', error: toWire(reason) }));

  port.on('message', (msg: ToWorker) => {
    switch (msg.type) {
      case 'ui-result':
        ui.settle(msg.id, msg);
        return;
      case 'checkpoint':
        void checkpoint(bridge, msg.id, post);
        return;
      case 'close':
        closing ??= close(msg.keepLock);
        return;
      case 'start':
        ui = new RemoteUiHost(post, msg.uiMethods);
        void start(msg.options);
        return;
    }
  });

  const close = async (keepLock?: boolean) => {
    try {
      ui.abandon('the bridge is closing');
      await bridge?.close({ keepLock }); // checkpoint, bridge.json removed, lock released (or kept for a restart)
      bridge = undefined;
      closing = undefined;
      post({ type: 'closed' });
    } catch (err) {
      post({ type: 'close-error', error: toWire(err) });
    }
  };

  const start = async (options: WorkerBridgeOptions) => {
    try {
      bridge = await createBridge({
        ...options,
        ui,
        onRequest: (entry) => post({ type: 'request', entry }),
        onError: (err) => post({ type: 'internal-error', error: toWire(err) }),
      });
    } catch (err) {
      post({ type: 'start-error', error: toWire(err) });
      return;
    }
    const recovered = recoveryLine(bridge.services.store.recovery);
    if (recovered) process.stderr.write(`${recovered}\n`);
    post({
      type: 'ready',
      baseUrl: bridge.baseUrl,
      port: bridge.port,
      token: bridge.token,
      instanceNonce: bridge.instanceNonce,
      threadId,
      codeCache: boot.codeCache,
    });
    if (afterFirstReady) setTimeout(afterFirstReady, CODE_CACHE_AFTER_MS).unref();
    afterFirstReady = undefined;
  };

  void start(data.options);
}

/** Checkpoints the running bridge on this thread and answers how long it took. */
async function checkpoint(bridge: Bridge | undefined, id: number, post: (msg: FromWorker) => void): Promise<void> {
  try {
    if (!bridge) throw new Error('the bridge is not running');
    const t0 = performance.now();
    await bridge.services.store.checkpoint();
    post({ type: 'checkpoint-result', id, ok: true, result: { ms: performance.now() - t0, threadId } });
  } catch (err) {
    post({ type: 'checkpoint-result', id, ok: false, error: toWire(err) });
  }
}

/**
 * How much nicer than the window the bridge's thread runs (and of the PDF workers it starts,
 * which inherit it). On a busy machine the bridge then waits for the CPU
 * rather than the window's main thread: measured with 10 books imported on 2
 * loaded cores, the main thread's event-loop delay p99 fell from ~50 to
 * ~25 ms and its max from ~200 to ~80 ms. Linux only: there a nice value
 * belongs to one thread; elsewhere it would lower the whole extension host.
 */
export const BRIDGE_THREAD_NICE = 10;

function yieldToTheWindow(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, Math.min(19, getPriority(0) + BRIDGE_THREAD_NICE)); // 0: the calling thread
  } catch {
    /* not permitted: run at the normal priority */
  }
}
