import { busy } from '../../errors';

/** Thrown at a cancellation checkpoint once the job was cancelled (discard). */
export class JobCancelled extends Error {
  constructor() {
    super('job cancelled');
    this.name = 'JobCancelled';
  }
}

export interface RunningJob {
  jobId: string;
  bundleId: string;
  pagesTotal: number;
  pagesDone: number;
  /** Set by discard; the job stops at its next checkpoint and only then frees the slot. */
  cancelled: boolean;
  startedAt: number;
  /** Resolves (never rejects) when the job has left the slot; `error` tells how it ended. */
  done: Promise<void>;
  error?: unknown;
}

export interface JobControl {
  /** Records progress (GET /bundles shows it while preparing). */
  progress(pagesDone: number): void;
  /** Cancellation checkpoint: throws JobCancelled once discard asked. */
  checkpoint(): void;
  readonly job: RunningJob;
}

/** Rough per-page cost for retryAfterSeconds (stored pages are fast; OCR pages are not). */
const SECONDS_PER_PAGE = 0.2;

/**
 * One prepare at a time, synchronous ones included (bridge-api Limits). The
 * slot is held until the job really stops: a discarded job keeps it until it
 * reaches a checkpoint, so a prepare right after a discard gets 429 too.
 */
export class SingleSlotRunner {
  private current: RunningJob | undefined;
  /**
   * Prepares answered 507 whose row could not be deleted either (the disk was still full): the list hides
   * them, since the answer said nothing was prepared, until BundlePrepareJob.failStale deletes them.
   */
  readonly withdrawn = new Set<string>();

  get running(): RunningJob | undefined {
    return this.current;
  }

  /** 429 PREPARE_BUSY describing the running job, or undefined when the slot is free. */
  busyError() {
    const j = this.current;
    if (!j) return undefined;
    const retryAfterSeconds = j.cancelled ? 1 : Math.max(1, Math.ceil((j.pagesTotal - j.pagesDone) * SECONDS_PER_PAGE));
    return busy(
      'PREPARE_BUSY',
      j.cancelled
        ? `A discarded prepare (job ${j.jobId}) is still stopping at its cancellation checkpoint; wait retryAfterSeconds, then prepare once.`
        : `Another prepare is running (job ${j.jobId}, ${j.pagesDone}/${j.pagesTotal} pages). Only one runs at a time: poll GET /bundles and prepare again when it is done; do not re-send at once.`,
      retryAfterSeconds,
      {
        runningJob: {
          jobId: j.jobId,
          bundleId: j.bundleId,
          pagesDone: j.pagesDone,
          pagesTotal: j.pagesTotal,
          cancelling: j.cancelled,
        },
      },
    );
  }

  /**
   * Takes the slot synchronously (or throws 429) and runs `work` in it;
   * the slot is freed when work settles.
   */
  start(
    ids: { jobId: string; bundleId: string; pagesTotal: number },
    work: (ctl: JobControl) => Promise<void>,
  ): RunningJob {
    const refused = this.busyError();
    if (refused) throw refused;
    const job: RunningJob = { ...ids, pagesDone: 0, cancelled: false, startedAt: Date.now(), done: Promise.resolve() };
    this.current = job;
    const ctl: JobControl = {
      job,
      progress: (n) => (job.pagesDone = n),
      checkpoint: () => {
        if (job.cancelled) throw new JobCancelled();
      },
    };
    job.done = (async () => {
      try {
        await work(ctl);
      } catch (e) {
        job.error = e;
      } finally {
        if (this.current === job) this.current = undefined;
      }
    })();
    return job;
  }

  /** Asks the job of `bundleId` to stop at its next checkpoint; returns it, or undefined when none runs. */
  cancel(bundleId: string): RunningJob | undefined {
    const j = this.current;
    if (!j || j.bundleId !== bundleId) return undefined;
    j.cancelled = true;
    return j;
  }
}
