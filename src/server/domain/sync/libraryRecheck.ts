import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Store } from '../../ground/store/store';
import { newId } from '../library/ids';
import { insideLibrary } from '../library/libraryPaths';
import { libraryFiles } from '../library/libraryFiles';
import { libraryRows, relPath, statFile } from './libraryObservation';
import type { NewSyncEvent, SyncEventLog } from './syncEventLog';

export interface RecheckLanes {
  /** Compare the database's rows with the folder: missing files, untracked files. */
  database: boolean;
  /** Re-hash every library file (MD5 against its bookmd5). */
  documents: boolean;
}

export interface RecheckRun {
  operationId: string;
  startSequence: number;
  lanes: RecheckLanes;
  done: Promise<void>;
}

function md5File(file: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('md5');
    const stream = createReadStream(file);
    const abort = () => stream.destroy(new Error('cancelled'));
    signal.addEventListener('abort', abort, { once: true });
    stream.on('data', (chunk) => hash.update(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(hash.digest('hex')));
    stream.on('close', () => signal.removeEventListener('abort', abort));
  });
}

/**
 * POST /sync/legacy/recheck: one run at a time (a second request joins the
 * running one). The run logs recheck_started, one event per document
 * (file_verified / file_mismatch / file_missing) and recheck_finished.
 */
export class LibraryRecheck {
  running: RecheckRun | undefined;

  constructor(
    private readonly store: Store,
    private readonly libraryDir: string,
    private readonly log: SyncEventLog,
    private readonly closing: AbortSignal,
  ) {}

  async start(lanes: RecheckLanes): Promise<RecheckRun & { alreadyRunning: boolean }> {
    if (this.running) return { ...this.running, alreadyRunning: true };
    const operationId = newId();
    const rows = libraryRows(this.store);
    const [seq] = await this.log.append([
      { kind: 'recheck_started', details: { operationId, lanes, documentCount: rows.length } },
    ]);
    const run: RecheckRun = { operationId, startSequence: seq - 1, lanes, done: Promise.resolve() };
    this.running = run;
    run.done = this.run(run).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    return { ...run, alreadyRunning: false };
  }

  private async run(run: RecheckRun): Promise<void> {
    const t0 = Date.now();
    const counts = { verified: 0, mismatched: 0, missing: 0, present: 0, untracked: 0 };
    try {
      // Rows read now: a document deleted meanwhile is skipped when its row is gone.
      for (const row of libraryRows(this.store)) {
        if (this.closing.aborted) return;
        if (!this.store.get('SELECT 1 FROM documents WHERE bookmd5 = ?', [row.bookmd5])) continue;
        const path = relPath(row);
        const stat = statFile(this.libraryDir, row);
        let event: NewSyncEvent | undefined;
        if (!stat.exists) {
          counts.missing++;
          event = { kind: 'file_missing', bookmd5: row.bookmd5, path, details: { operationId: run.operationId } };
        } else if (run.lanes.documents) {
          let actual: string;
          try {
            actual = await md5File(insideLibrary(this.libraryDir, row.folder, row.filename), this.closing);
          } catch {
            if (this.closing.aborted) return;
            counts.missing++;
            event = {
              kind: 'file_missing',
              bookmd5: row.bookmd5,
              path,
              details: { operationId: run.operationId, unreadable: true },
            };
            await this.log.append([event]);
            continue;
          }
          if (actual === row.bookmd5) {
            counts.verified++;
            event = {
              kind: 'file_verified',
              bookmd5: row.bookmd5,
              path,
              details: { operationId: run.operationId, size: stat.size },
            };
          } else {
            counts.mismatched++;
            event = {
              kind: 'file_mismatch',
              bookmd5: row.bookmd5,
              path,
              details: { operationId: run.operationId, actualMd5: actual, size: stat.size, recordedSize: row.size },
            };
          }
        } else counts.present++;
        if (event) await this.log.append([event]);
      }
      if (run.lanes.database) {
        const tracked = new Set(libraryRows(this.store).map(relPath));
        const untracked = libraryFiles(this.libraryDir).filter((f) => !tracked.has(f));
        counts.untracked = untracked.length;
        await this.log.append(
          untracked.map((path) => ({
            kind: 'file_untracked' as const,
            path,
            details: { operationId: run.operationId },
          })),
        );
      }
      await this.log.append([
        { kind: 'recheck_finished', details: { operationId: run.operationId, ...counts, durationMs: Date.now() - t0 } },
      ]);
    } catch {
      // The store closed under the run (bridge shutdown): nothing more to log.
    }
  }
}
