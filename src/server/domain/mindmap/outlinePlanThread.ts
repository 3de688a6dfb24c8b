import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BridgeError } from '../../errors';
import { workerScript } from '../../ground/threads/workerScript';
import { planOutline, type OutlineFormat, type OutlinePlan } from './outlineImport';

/**
 * An outline's plan, parsed where a budget can stop it: a small outline on
 * the calling thread (a worker's start costs more than its parse), a large
 * one on a worker thread of its own, ended when it runs over the budget.
 * The event loop keeps answering other requests meanwhile.
 */

/** Larger contents go to a worker: ~64 KiB parses in a few milliseconds. */
const INLINE_CHARS = 64 * 1024;
export const OUTLINE_BUDGET_MS = 10_000;

const tooCostly = (budgetMs: number) =>
  new BridgeError(
    'OUTLINE_TOO_COSTLY',
    422,
    `The outline took more than ${budgetMs / 1000} s to read and was stopped; split it or simplify its Markdown. Nothing was changed.`,
    { budgetMs },
  );

type Answer = {
  plan?: OutlinePlan;
  error?: { code?: string; status?: number; message: string; details?: Record<string, unknown> };
};

/** The plan of `content`, or 422 OUTLINE_TOO_COSTLY when a worker's parse runs over `budgetMs`. */
export async function planOutlineBounded(
  format: OutlineFormat,
  content: string,
  title?: string,
  budgetMs = OUTLINE_BUDGET_MS,
): Promise<OutlinePlan> {
  if (content.length <= INLINE_CHARS) return planOutline(format, content, title);
  const { script, eval: isEval } = workerScript(path.join(__dirname, 'outlineWorker.ts'), 'outlineWorker.js');
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, {
      eval: isEval,
      workerData: { format, content, title },
      name: 'study-bridge-outline',
    });
    // A stop of the bridge never waits for it.
    worker.unref();
    let answered = false;
    const settle = (fn: () => void) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(tooCostly(budgetMs))), budgetMs);
    worker.once('message', (m: Answer) =>
      settle(() => {
        if (m.plan) return resolve(m.plan);
        const e = m.error;
        if (e?.code && e.status) reject(new BridgeError(e.code, e.status, e.message, e.details));
        else reject(new Error(e?.message ?? 'the outline worker answered nothing'));
      }),
    );
    worker.once('error', (e) => settle(() => reject(e)));
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the outline worker exited (${code}) without an answer`))),
    );
  });
}
