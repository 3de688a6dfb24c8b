import type { CheckpointWrite } from './checkpointFile';

export interface StoreOptions {
  /** Checkpoint when the journal passes this many bytes. */
  checkpointBytes?: number;
  /** Checkpoint after this long without writes (ms). 0 disables the idle checkpoint. */
  idleCheckpointMs?: number;
  /**
   * A database at least this large is checkpointed by a worker thread from
   * library.db and the journal (checkpointReplica.ts) instead of exported on
   * this thread. Export costs ~6 ms per MB here, so 16 MiB holds it ~100 ms.
   */
  offThreadCheckpointBytes?: number;
}

/** What the last checkpoint cost and how it was made (diagnostics and the bench). */
export type CheckpointStats = CheckpointWrite & {
  /** How long the store's thread was held: the export, or only noting where the journal ends for an off-thread build. */
  holdMs: number;
  /** Until the image was in hand (the export, or the worker's build). */
  exportMs: number;
  writeMs: number;
  totalMs: number;
  bytes: number;
  builtOffThread: boolean;
  /** Why an off-thread build was given up for an export on this thread. */
  offThreadFailure?: string;
};
