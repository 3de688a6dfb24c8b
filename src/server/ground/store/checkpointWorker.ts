// Worker thread entry (dist/checkpointWorker.js): builds one checkpoint image
// from library.db and the journal (checkpointReplica.ts) and posts it back.
import { parentPort, workerData } from 'node:worker_threads';
import { buildReplicaImage, type ReplicaInput } from './checkpointReplica';

buildReplicaImage(workerData as ReplicaInput).then(
  (image) => parentPort!.postMessage({ image }, [image.data.buffer as ArrayBuffer, image.crcs.buffer as ArrayBuffer]),
  (e: unknown) => parentPort!.postMessage({ error: e instanceof Error ? e.message : String(e) }),
);
