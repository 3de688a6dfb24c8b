import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BridgeError } from '../../errors';
import { workerScript } from '../threads/workerScript';
import { FSRS_BINDING_MODULE } from './fsrsBinding';
import type { FitInput, FitMessage, FitResult, FitStage } from './fsrsFitTypes';

export { packHistories } from './fsrsFitTypes';
export type { CardHistory, FitInput, FitResult, FitStage, Score } from './fsrsFitTypes';

/** 503: fsrs-rs has no build that loads here; the rest of the bridge, scheduling included, works. */
export const optimizerUnavailable = (loadError: string) =>
  new BridgeError(
    'FSRS_OPTIMIZER_UNAVAILABLE',
    503,
    `FSRS's optimizer cannot run on ${process.platform}-${process.arch}: ${FSRS_BINDING_MODULE} did not load (${loadError}). ` +
      'Reviews are scheduled as before, with the weights the deck has (or the defaults); nothing was changed.',
    { platform: `${process.platform}-${process.arch}`, module: FSRS_BINDING_MODULE, loadError },
  );

/**
 * Fits FSRS's weights on a thread of its own, which ends with the answer:
 * fsrs-rs's training takes seconds of CPU and its memory goes with the
 * thread. `onProgress` hears fsrs-rs's (current, total) steps; `signal` ends
 * the thread early (the client went away, the bridge is closing).
 */
export function fitOffThread(
  input: FitInput,
  onProgress: (stage: FitStage, current: number, total: number) => void,
  signal?: AbortSignal,
): Promise<FitResult> {
  const { script, eval: isEval } = workerScript(path.join(__dirname, 'optimizerWorker.ts'), 'fsrsOptimizer.js');
  return new Promise((resolve, reject) => {
    if (signal?.aborted)
      return reject(
        new BridgeError(
          'OPTIMIZE_CANCELLED',
          503,
          'The fit was cancelled: the bridge is closing or the client went away.',
          undefined,
          true,
        ),
      );
    const { starts, ratings, deltaDays, at } = input.histories;
    const worker = new Worker(script, {
      eval: isEval,
      workerData: input,
      transferList: [starts.buffer, ratings.buffer, deltaDays.buffer, at.buffer] as ArrayBuffer[],
      name: 'study-bridge-fsrs',
    });
    let done = false;
    const finish = (f: () => void) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', abort);
      f();
      void worker.terminate();
    };
    const abort = () =>
      finish(() =>
        reject(
          new BridgeError('OPTIMIZE_CANCELLED', 503, 'The fit was cancelled; nothing was changed.', undefined, true),
        ),
      );
    signal?.addEventListener('abort', abort, { once: true });
    worker.on('message', (m: FitMessage) => {
      if (m.kind === 'progress') return done || onProgress(m.stage, m.current, m.total);
      if (m.kind === 'result') return finish(() => resolve(m.result));
      if (m.kind === 'unavailable') return finish(() => reject(optimizerUnavailable(m.loadError)));
      if (m.kind === 'notEnough')
        return finish(() =>
          reject(
            new BridgeError(
              'REVIEW_HISTORY_TOO_SHORT',
              422,
              `FSRS's optimizer found too little history to fit and score (${m.trainItems} grades to fit, ${m.testItems} to score): ${m.message}. Nothing was changed.`,
              { trainItems: m.trainItems, testItems: m.testItems },
            ),
          ),
        );
      finish(() => reject(new BridgeError('OPTIMIZE_FAILED', 500, `FSRS's optimizer failed: ${m.message}`)));
    });
    worker.once('error', (e) => finish(() => reject(e)));
    worker.once('exit', (code) =>
      finish(() => reject(new BridgeError('OPTIMIZE_FAILED', 500, `FSRS's optimizer thread exited (${code}).`))),
    );
  });
}
