import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerRequest, WorkerResponse } from './workerProtocol';
import { TOO_COMPLEX, TOO_COMPLEX_EXIT, workerResourceLimits, type ExtractionBudget } from './extractionBudget';
import { PdfTaskError, tooComplex } from './pdfTaskError';
import { workerScript } from '../threads/workerScript';

/** Node before 22 aborts when a worker is torn down inside zlib's handle set-up (WorkerSlot.terminate). */
const TEARDOWN_IN_ZLIB_ABORTS = Number(process.versions.node.split('.')[0]) < 22;
/** How long a busy worker asked to quit may take before it is torn down anyway: a page's turn, within a stop's 2 s. */
const QUIT_WAIT_MS = 1500;

/** Distributes request objects without an id. */
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type Request = DistributiveOmit<WorkerRequest, 'id'>;

export interface Task {
  req: Request;
  onMessage: (msg: WorkerResponse) => void;
  resolve: (msg: WorkerResponse) => void;
  reject: (err: Error) => void;
  /** Tasks of one extraction share a group, so they can be reordered or cancelled. */
  group?: string;
  pages?: number[];
}

/** The PDF worker's script: dist/pdfWorker.js, or extractWorker.ts beside this module under tsx. */
export function pdfWorkerScript(): { script: string; eval: boolean } {
  return workerScript(path.join(__dirname, 'extractWorker.ts'), 'pdfWorker.js');
}

/** What a slot tells its pool. */
export interface SlotEvents {
  /** The slot finished its task (answered or failed) and can take another. */
  free(slot: WorkerSlot): void;
  /** The slot's worker is ending or gone: it takes no more tasks. */
  gone(slot: WorkerSlot): void;
}

/**
 * One PDF worker thread and its timers: the task it runs, the no-progress
 * timer that ends it when the task goes over the budget's time, and the idle
 * timer that ends it when no task comes (its pdf.js, documents and OCR
 * engine go with it; the thread's memory is given back).
 */
export class WorkerSlot {
  readonly worker: Worker;
  busy?: Task & { id: number };
  /** Kind of the last task it ran (the pool picks the idle time from it). */
  lastKind?: Request['kind'];
  private idleTimer?: NodeJS.Timeout;
  private stallTimer?: NodeJS.Timeout;
  private ended = false;
  /** Set to 1 to ask the worker to end at its next page or turn (terminate on Node 20). */
  private readonly quit = new Int32Array(new SharedArrayBuffer(4));

  constructor(
    private readonly budget: ExtractionBudget,
    private readonly events: SlotEvents,
    lowPriority = false,
  ) {
    const script = pdfWorkerScript();
    this.worker = new Worker(script.script, {
      eval: script.eval,
      workerData: { budget, lowPriority, quit: this.quit.buffer },
      resourceLimits: workerResourceLimits(budget),
    });
    this.worker.on('message', (msg: WorkerResponse) => this.answer(msg));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`exited with code ${code}`), code));
  }

  /** Runs a task: the worker is kept alive (ref'd) until it answers. */
  start(task: Task, id: number): void {
    this.busy = { ...task, id };
    this.lastKind = task.req.kind;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.worker.ref();
    this.watchStall();
    this.worker.postMessage({ ...task.req, id });
  }

  /** Nothing to do: the worker no longer keeps the process alive, and ends after `ms` unless a task comes. */
  idle(ms: number): void {
    if (this.busy || this.ended) return;
    this.worker.unref();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.busy) return;
      this.end();
      void this.worker.terminate();
    }, ms);
    this.idleTimer.unref();
  }

  /**
   * Ends the worker. Node 20 aborts the whole process when a worker is torn down while it makes a zlib handle (made,
   * not yet initialised: "close before init"; fixed in 22), and a busy pdf.js worker inflates all the time. So there
   * a busy worker is asked to quit after its page or at its loop's next turn, and torn down only if it has not within
   * QUIT_WAIT_MS (a page stuck in one synchronous step).
   */
  terminate(): Promise<number> {
    this.end();
    if (!this.busy || !TEARDOWN_IN_ZLIB_ABORTS) return this.worker.terminate();
    const exited = new Promise<number>((resolve) => this.worker.once('exit', resolve));
    Atomics.store(this.quit, 0, 1); // seen after each page and at each turn of its loop
    this.worker.postMessage({ id: -1, kind: 'quit' } satisfies WorkerRequest);
    const hard = setTimeout(() => void this.worker.terminate(), QUIT_WAIT_MS);
    return exited.finally(() => clearTimeout(hard));
  }

  private answer(msg: WorkerResponse): void {
    const task = this.busy;
    if (!task || msg.id !== task.id) return;
    if (msg.kind === 'page' || msg.kind === 'annotationPage') {
      this.watchStall();
      task.onMessage(msg);
      return;
    }
    this.busy = undefined;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (msg.kind === 'error' && msg.code === TOO_COMPLEX) {
      // The worker is ending itself: no further task goes to it.
      this.end();
      task.reject(tooComplex(msg.message));
      return;
    }
    if (msg.kind === 'error') task.reject(new PdfTaskError(msg.message, msg.code, msg.errno));
    else task.resolve(msg);
    this.events.free(this);
  }

  private fail(err: Error & { code?: string }, exitCode?: number): void {
    this.end();
    // Over budget: the worker ended itself, or V8 ended it at its heap limit.
    const overBudget = exitCode === TOO_COMPLEX_EXIT || err.code === 'ERR_WORKER_OUT_OF_MEMORY';
    this.busy?.reject(
      overBudget
        ? tooComplex(
            exitCode === TOO_COMPLEX_EXIT
              ? 'it went over the memory budget of a PDF worker'
              : `a PDF worker ran out of memory (${this.budget.heapMb} MB heap)`,
          )
        : new PdfTaskError(`PDF worker failed: ${err.message}`, 'WORKER_FAILED'),
    );
    this.busy = undefined;
  }

  /** (Re)starts the no-progress timer of the busy task: a page, or the whole task when it has no pages. */
  private watchStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    const task = this.busy;
    if (!task) return;
    // An export goes through every page it is given in one go; page and annotation reads answer page by page.
    const perPage = task.req.kind === 'pages' || task.req.kind === 'annotations';
    const ms = this.budget.pageMs + (!perPage && 'pages' in task.req ? task.req.pages.length * 250 : 0);
    this.stallTimer = setTimeout(() => {
      if (this.busy !== task) return;
      const what = perPage ? 'a page' : `the ${task.req.kind} step`;
      this.busy = undefined;
      this.end();
      task.reject(tooComplex(`reading ${what} took more than ${Math.round(ms / 1000)} s`));
      void this.worker.terminate();
    }, ms);
    this.stallTimer.unref();
  }

  /** Takes the slot out of use once (its worker is ending or gone); the pool hands its queue to a fresh one. */
  private end(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (this.ended) return;
    this.ended = true;
    this.events.gone(this);
  }
}
