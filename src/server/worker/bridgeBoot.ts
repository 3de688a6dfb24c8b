// Entry of dist/bridgeBoot.js: the bridge's worker thread when the window
// keeps a code cache (BridgeWorkerThread's codeCacheDir). It requires
// dist/bridgeWorker.js through V8's code cache (threads/codeCache.ts), runs
// the bridge, and saves the cache once the bridge has served a while, so the
// code its start and first requests compiled is in it.
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { requireWithCodeCache } from '../ground/threads/codeCache';
import type { BridgeWorkerData } from './protocol';
import type { runBridgeWorker } from './workerMain';

const data = workerData as BridgeWorkerData;
if (parentPort && data.codeCacheDir) {
  const bundle = requireWithCodeCache(path.join(__dirname, 'bridgeWorker.js'), data.codeCacheDir);
  const run = bundle.exports.runBridgeWorker as typeof runBridgeWorker;
  run(parentPort, data, { codeCache: bundle.state, afterFirstReady: () => bundle.save() });
}
