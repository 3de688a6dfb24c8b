import { invalidInput } from '../../errors';
import type { Store } from '../../ground/store/store';
import type { BridgeConfig } from '../../config';
import { inventoryState, libraryRows, relPath, statFile, type InventoryState } from './libraryObservation';
import { LibraryRecheck, type RecheckLanes } from './libraryRecheck';
import { LibraryWatcher } from './libraryWatcher';
import { SyncEventLog } from './syncEventLog';

/**
 * Legacy sync diagnostics (docs/CONTRACT-CHOICES.md, "Legacy sync"): the channel that reconciles the
 * library's database with its files on disk. Its event log is fed by the
 * library watcher and by rechecks; status and inventory only observe.
 */
export class LegacySync {
  readonly log: SyncEventLog;
  readonly watcher: LibraryWatcher;
  readonly recheck: LibraryRecheck;

  constructor(
    private readonly services: { store: Store; config: Pick<BridgeConfig, 'libraryDir'>; closing: AbortSignal },
  ) {
    this.log = new SyncEventLog(services.store);
    this.watcher = new LibraryWatcher(services.store, services.config.libraryDir, this.log, services.closing);
    this.recheck = new LibraryRecheck(services.store, services.config.libraryDir, this.log, services.closing);
  }

  status() {
    const lastRecheck = this.log.lastOfKind('recheck_started');
    const lastFinished = this.log.lastOfKind('recheck_finished');
    const counts = { total: 0, observed: 0, possibleMismatch: 0, missingFile: 0 };
    const latest = this.log.latestFileKinds();
    for (const row of libraryRows(this.services.store)) {
      const state = inventoryState(row, statFile(this.services.config.libraryDir, row), latest.get(row.bookmd5));
      counts.total++;
      if (state === 'observed') counts.observed++;
      else if (state === 'possible_mismatch') counts.possibleMismatch++;
      else counts.missingFile++;
    }
    const running = this.recheck.running;
    return {
      errorCount: this.log.errorCount,
      suspended: false,
      suspensionNeedsAttention: false,
      // The current cycle starts at the last recheck.
      suspensionErrorCount: this.log.errorsSince(lastRecheck?.sequence ?? 0),
      lastSequence: this.log.lastSequence,
      watching: this.watcher.watching,
      lanes: ['documents'],
      documents: {
        ...counts,
        recheckRunning: !!running,
        ...(running ? { runningOperationId: running.operationId } : {}),
        lastRecheck: lastRecheck
          ? {
              operationId: lastRecheck.details.operationId,
              startedAt: lastRecheck.at,
              finished:
                lastFinished !== undefined && lastFinished.details.operationId === lastRecheck.details.operationId,
              ...(lastFinished && lastFinished.details.operationId === lastRecheck.details.operationId
                ? { finishedAt: lastFinished.at, result: lastFinished.details }
                : {}),
            }
          : null,
      },
    };
  }

  events(afterSequence: number, limit: number) {
    return this.log.read(afterSequence, limit);
  }

  async startRecheck(lanes: RecheckLanes) {
    if (!lanes.database && !lanes.documents)
      throw invalidInput(
        'Nothing to recheck: database and documents are both false.',
        { database: false, documents: false },
        'NOTHING_TO_RECHECK',
      );
    const run = await this.recheck.start(lanes);
    return {
      accepted: true,
      operationId: run.operationId,
      startSequence: run.startSequence,
      alreadyRunning: run.alreadyRunning,
      lanes: run.lanes,
    };
  }

  /** Observe-only page of the library, in bookmd5 order; the cursor is the last bookmd5 of the previous page. */
  inventory(cursor: string | undefined, limit: number) {
    const latest = this.log.latestFileKinds();
    const rows = libraryRows(this.services.store).filter((r) => cursor === undefined || r.bookmd5 > cursor);
    const page = rows.slice(0, limit);
    const items = page.map((row) => {
      const stat = statFile(this.services.config.libraryDir, row);
      const state: InventoryState = inventoryState(row, stat, latest.get(row.bookmd5));
      return { bookmd5: row.bookmd5, path: relPath(row), state, size: stat.size, recordedSize: row.size };
    });
    return {
      observeOnly: true,
      authoritative: false,
      items,
      count: items.length,
      nextCursor: rows.length > limit ? page[page.length - 1].bookmd5 : null,
    };
  }
}
