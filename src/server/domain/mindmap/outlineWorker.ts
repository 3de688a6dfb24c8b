// Worker thread entry (dist/outlineWorker.js): parses one outline (outlinePlanThread.ts) and posts the plan or its refusal.
import { parentPort, workerData } from 'node:worker_threads';
import { BridgeError } from '../../errors';
import { planOutline, type OutlineFormat } from './outlineImport';

const input = workerData as { format: OutlineFormat; content: string; title?: string };
try {
  parentPort!.postMessage({ plan: planOutline(input.format, input.content, input.title) });
} catch (e) {
  parentPort!.postMessage({
    error:
      e instanceof BridgeError
        ? { code: e.code, status: e.status, message: e.message, details: e.details }
        : { message: e instanceof Error ? e.message : String(e) },
  });
}
