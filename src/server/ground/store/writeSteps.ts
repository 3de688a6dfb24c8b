import type { WriteStep, WriteTx } from './groupCommit';

/**
 * A write written as a generator that yields after each chunk of statements
 * (a multi-row INSERT, a chunk of ids), composed with `yield*`. The same body
 * runs whole in one turn (`drained`, for callers inside a store.write) or in
 * slices of the event loop (`stepsOf`, for Store.writeSliced).
 */
export type WriteSteps<T> = Generator<unknown, T, void>;

/**
 * Yielded before a statement that alone takes a slice or more (an operation
 * row naming 60,000 cards): the slice ends there, so that statement starts a
 * slice of its own instead of running past one already spent.
 */
export const SLICE_END = Symbol('slice end');

/**
 * The step Store.writeSliced runs again and again: the body goes on from its
 * last yield until `sliceMs` have passed (or it yields SLICE_END), then hands
 * the loop back; its return value is the write's answer.
 */
export function stepsOf<T>(body: (tx: WriteTx) => WriteSteps<T>, sliceMs = 40): WriteStep<T> {
  let steps: WriteSteps<T> | undefined;
  return (tx) => {
    steps ??= body(tx);
    const started = performance.now();
    for (;;) {
      const next = steps.next();
      if (next.done) return { value: next.value };
      if (next.value === SLICE_END || performance.now() - started >= sliceMs) return undefined;
    }
  };
}

/** Runs `steps` to its end in this turn: the synchronous form of a stepped write. */
export function drained<T>(steps: WriteSteps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs `steps` (work outside any write: planning, reading a package) in slices of `sliceMs`, the loop served between. */
export async function inSlices<T>(steps: WriteSteps<T>, sliceMs = 40): Promise<T> {
  for (;;) {
    const started = performance.now();
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
      if (next.value === SLICE_END || performance.now() - started >= sliceMs) break;
    }
    await new Promise((r) => setImmediate(r));
  }
}
