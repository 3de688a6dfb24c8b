import { freeBytes } from './diskSpace';

/** Below this much free space writes are expected to fail: a card still fits, an upload or a checkpoint does not. */
export const LOW_SPACE_BYTES = 1024 * 1024;
/** statfs is cheap, but /status may be polled by many clients: one writable reading serves this long. */
const FRESH_MS = 1000;
/** While not writable, how often the bridge looks again (to restore what start-up could not write). */
const RECHECK_MS = 10_000;

export interface StorageStatus {
  writable: boolean;
  /** Free bytes of the data dir's file system; null when it cannot be told. */
  freeBytes: number | null;
  reason?: 'disk_full';
}

/**
 * Whether the data dir can take writes now, for GET /status. A full disk is
 * a normal state: reads go on, writes answer 507, and once space is back the
 * next reading says writable again (and `onWritable` runs) without a restart.
 */
export class StorageMonitor {
  private last: { at: number; status: StorageStatus } | undefined;
  private wasWritable = true;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly onWritable: () => void = () => undefined,
  ) {}

  status(): StorageStatus {
    const now = Date.now();
    // Only a writable reading is reused: a full disk is read again at every ask, so freed space shows at once.
    if (this.last?.status.writable && now - this.last.at < FRESH_MS) return this.last.status;
    const free = freeBytes(this.dataDir);
    const status: StorageStatus =
      free === undefined || free >= LOW_SPACE_BYTES
        ? { writable: true, freeBytes: free ?? null }
        : { writable: false, freeBytes: free, reason: 'disk_full' };
    this.last = { at: now, status };
    this.track(status.writable);
    return status;
  }

  /** A write just failed for space: the next status reads the disk again. */
  noteNoSpace(): void {
    this.last = undefined;
    this.track(false);
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private track(writable: boolean): void {
    if (writable && !this.wasWritable) {
      this.close();
      try {
        this.onWritable();
      } catch {
        // best effort: the next flip tries again
      }
    }
    if (!writable && !this.timer) {
      this.timer = setInterval(() => {
        this.last = undefined;
        this.status();
      }, RECHECK_MS);
      this.timer.unref();
    }
    this.wasWritable = writable;
  }
}
