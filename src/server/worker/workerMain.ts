import { performance } from 'node:perf_hooks';
import { threadId, type MessagePort } from 'node:worker_threads';
import { createBridge, type Bridge } from '../bridge';
import { RemoteUiHost } from './remoteUiHost';
import { toWire, type BridgeWorkerData, type FromWorker, type ToWorker } from './protocol';

/**
 * The bridge inside its worker thread: createBridge with the window's UI
 * behind a message proxy; answers `checkpoint` and `close` from the main
 * thread, relays the request log and unexpected errors to it.
 */
export async function runBridgeWorker(port: MessagePort, data: BridgeWorkerData): Promise<void> {
  const post = (msg: FromWorker) => port.postMessage(msg);
  const ui = new RemoteUiHost(post, data.uiMethods);
  let bridge: Bridge | undefined;
  // The main thread asks to close only after `ready` (or a start error), so `bridge` is set by then.
  let closing: Promise<void> | undefined;

  // The extension host logs stray rejections instead of dying; so does this thread.
  process.on('unhandledRejection', (reason) => post({ type: 'internal-error', error: toWire(reason) }));

  port.on('message', (msg: ToWorker) => {
    switch (msg.type) {
      case 'ui-result':
        ui.settle(msg.id, msg);
        return;
      case 'checkpoint':
        void checkpoint(msg.id);
        return;
      case 'close':
        closing ??= close();
        return;
    }
  });

  const checkpoint = async (id: number) => {
    try {
      if (!bridge) throw new Error('the bridge is not running');
      const t0 = performance.now();
      await bridge.services.store.checkpoint();
      post({ type: 'checkpoint-result', id, ok: true, result: { ms: performance.now() - t0, threadId } });
    } catch (err) {
      post({ type: 'checkpoint-result', id, ok: false, error: toWire(err) });
    }
  };

  const close = async () => {
    try {
      ui.abandon('the bridge is closing');
      await bridge?.close(); // checkpoint, bridge.json removed, lock released
      post({ type: 'closed' });
    } catch (err) {
      post({ type: 'close-error', error: toWire(err) });
    }
  };

  try {
    bridge = await createBridge({
      ...data.options,
      ui,
      onRequest: (entry) => post({ type: 'request', entry }),
      onError: (err) => post({ type: 'internal-error', error: toWire(err) }),
    });
  } catch (err) {
    post({ type: 'start-error', error: toWire(err) });
    return;
  }
  post({ type: 'ready', baseUrl: bridge.baseUrl, port: bridge.port, token: bridge.token, instanceNonce: bridge.instanceNonce, threadId });
}
