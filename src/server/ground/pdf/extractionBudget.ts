import type { ResourceLimits } from 'node:worker_threads';
import { BridgeError } from '../../errors';

/**
 * What one PDF may cost a worker thread. Untrusted PDFs are parsed only in
 * the extraction workers; a document over these limits ends that worker
 * (the pool starts a fresh one) and fails with PDF_TOO_COMPLEX, so a bomb
 * never takes the bridge, or the VS Code window that hosts it, down.
 */
export interface ExtractionBudget {
  /** V8 old generation of a worker (pdf.js objects, text items). */
  heapMb: number;
  /** One Flate stream may inflate to at most this many bytes (a content stream of 1 GB of spaces is a bomb). */
  streamBytes: number;
  /** A worker's heap plus array buffers, beyond the bytes of the PDFs it holds open. */
  workerMemoryMb: number;
  /** Time without progress (a page delivered, an answer) before the worker is ended. */
  pageMs: number;
}

export const defaultBudget: ExtractionBudget = {
  heapMb: 1024,
  streamBytes: 256 * 1024 * 1024,
  workerMemoryMb: 1024,
  pageMs: 60_000,
};

/** Exit code of a worker that ended itself over budget (the pool maps it to PDF_TOO_COMPLEX). */
export const TOO_COMPLEX_EXIT = 87;

export const TOO_COMPLEX = 'PDF_TOO_COMPLEX';

/** 422 PDF_TOO_COMPLEX for a read (render, export) that went over the budget. */
export const pdfTooComplexError = (reason: string) =>
  new BridgeError(TOO_COMPLEX, 422, `The PDF is too complex to read safely: ${reason}.`, { reason });

export function workerResourceLimits(budget: ExtractionBudget): ResourceLimits {
  return { maxOldGenerationSizeMb: budget.heapMb };
}

// ── inside a worker ──

let budget: ExtractionBudget = defaultBudget;
let onExceeded: (reason: string) => never = (reason) => {
  throw new Error(`${TOO_COMPLEX}: ${reason}`);
};

/** Set by the worker entry: the budget the pool sent, and how to give up (answer, then end the thread). */
export function setWorkerBudget(b: ExtractionBudget, exceeded: (reason: string) => never): void {
  budget = b;
  onExceeded = exceeded;
}

export const workerBudget = (): ExtractionBudget => budget;

/** Gives up on the current document: pdf.js swallows thrown errors in places, so the worker ends itself. */
export function budgetExceeded(reason: string): never {
  return onExceeded(reason);
}

/**
 * The worker's own memory (per thread: V8 heap and array buffers) against
 * its budget; `openBytes` are the PDFs it holds open. Checked between pages
 * and on a timer that runs whenever pdf.js yields.
 */
export function checkWorkerMemory(openBytes: number): void {
  const m = process.memoryUsage();
  const used = m.heapUsed + m.arrayBuffers - openBytes;
  const limit = budget.workerMemoryMb * 1024 * 1024;
  if (used > limit) budgetExceeded(`reading it needed more than ${budget.workerMemoryMb} MB of memory`);
}
