import { openSync, readFileSync, readSync, closeSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../threads/workerScript';
import { pageCrcs } from './checkpointFile';
import { parseJournal } from './journal';
import { openDatabase, runStatement } from './sqlite';

/**
 * A checkpoint built beside the store instead of from it (docs/DURABILITY.md,
 * "Checkpoint"). Exporting a large database holds the store's thread for as
 * long as sql.js takes to copy it (~1.3 s at 100k cards here). But library.db
 * plus the journal's acknowledged records already are the store's state:
 * start-up rebuilds it that way after a crash. So a worker thread does the
 * same: it loads library.db, replays the journal's first `upTo` bytes, stamps
 * `journal_seq` and exports, while the store goes on serving. Replay is
 * deterministic (statements carry their ids and clocks as parameters). A new
 * library with no library.db yet starts from an empty database, as start-up
 * does then. The replica must end exactly at `seq`, or the image is refused
 * and the store exports on its own thread instead.
 */
export interface ReplicaInput {
  /** library.db to start from; undefined: there is none yet, the journal holds every write from the first on. */
  dbPath: string | undefined;
  journalPath: string;
  /** The journal's acknowledged length when the checkpoint began: every record the image must hold. */
  upTo: number;
  /** The store's revision then: the last record's seq. */
  seq: number;
}

export interface ReplicaImage {
  data: Uint8Array;
  /** CRC32 of each page of `data` (checkpointFile.ts compares them with the file's). */
  crcs: Uint32Array;
  replayed: number;
}

/** Builds the image on this thread (the worker's body; tests call it directly too). */
export async function buildReplicaImage(input: ReplicaInput): Promise<ReplicaImage> {
  const db = await openDatabase(input.dbPath === undefined ? undefined : readFileSync(input.dbPath));
  try {
    // An empty database has no meta table yet: its journal replays from the first record.
    const from =
      input.dbPath === undefined
        ? 0
        : Number(db.exec(`SELECT value FROM meta WHERE key = 'journal_seq'`)[0]?.values[0]?.[0] ?? 0);
    const journal = parseJournal(readPrefix(input.journalPath, input.upTo));
    if (journal.damaged.length || journal.tornBytes)
      throw new Error(
        `the journal's acknowledged part does not read back whole (${journal.damaged.length} damaged spans, ${journal.tornBytes} torn bytes)`,
      );
    let last = from;
    let replayed = 0;
    for (const rec of journal.records) {
      if (rec.seq <= from) continue;
      if (rec.seq !== last + 1) throw new Error(`journal record ${rec.seq} follows ${last}`);
      db.exec('BEGIN');
      // Each statement is let go once it ran: a bulk import's one record parses to hundreds of MB.
      const stmts = rec.stmts.splice(0).reverse();
      while (stmts.length) {
        const [sql, params] = stmts.pop()!;
        runStatement(db, sql, params);
      }
      db.exec('COMMIT');
      last = rec.seq;
      replayed++;
    }
    if (last !== input.seq)
      throw new Error(`library.db and the journal reach seq ${last}, the store is at ${input.seq}`);
    db.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('journal_seq', ?)`, [String(input.seq)]);
    const data = db.export();
    return { data, crcs: pageCrcs(data), replayed };
  } finally {
    db.close();
  }
}

/** The first `bytes` of a file (the journal may grow meanwhile: what follows is not this checkpoint's). */
function readPrefix(file: string, bytes: number): Buffer {
  const buf = Buffer.alloc(bytes);
  const fd = openSync(file, 'r');
  try {
    let got = 0;
    while (got < bytes) {
      const n = readSync(fd, buf, got, bytes - got, got);
      if (n === 0) throw new Error(`the journal holds ${got} bytes, the checkpoint needs ${bytes}`);
      got += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

/**
 * Builds the image on a worker thread of its own, which ends with the answer
 * (its memory goes with it). `signal` ends the worker early (the store is
 * closing: its own export is quicker than the rest of a long replay).
 */
export function buildReplicaOffThread(input: ReplicaInput, signal?: AbortSignal): Promise<ReplicaImage> {
  const { script, eval: isEval } = workerScript(path.join(__dirname, 'checkpointWorker.ts'), 'checkpointWorker.js');
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('the checkpoint worker was not started: the store is closing'));
    const worker = new Worker(script, { eval: isEval, workerData: input, name: 'study-bridge-checkpoint' });
    let answered = false;
    const abort = () => {
      if (answered) return;
      answered = true;
      reject(new Error('the checkpoint worker was ended: the store is closing'));
      void worker.terminate();
    };
    signal?.addEventListener('abort', abort, { once: true });
    worker.once('exit', () => signal?.removeEventListener('abort', abort));
    worker.once('message', (m: { image?: ReplicaImage; error?: string }) => {
      if (answered) return;
      answered = true;
      if (m.image) resolve(m.image);
      else reject(new Error(m.error ?? 'the checkpoint worker answered nothing'));
      void worker.terminate();
    });
    worker.once('error', (e) => {
      if (answered) return;
      answered = true;
      reject(e);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the checkpoint worker exited (${code}) without an answer`));
    });
  });
}
