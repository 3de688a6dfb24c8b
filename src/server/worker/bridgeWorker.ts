// Entry of dist/bridgeWorker.js. Started as a worker thread (workerData says
// so) it runs the bridge there; required by dist/bridgeBoot.js (a thread with
// a code cache), bridgeBoot runs it. Required on the main thread it only
// exports createBridge: the extension loads the server from here when it
// hosts on the main thread, so extension.js itself carries no server code.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { runBridgeWorker } from './workerMain';
import type { BridgeWorkerData } from './protocol';

export { createBridge } from '../bridge';
export { runBridgeWorker };

const data = workerData as BridgeWorkerData | undefined;
if (!isMainThread && parentPort && data?.kind === 'study-bridge-worker' && !data.codeCacheDir)
  runBridgeWorker(parentPort, data);
