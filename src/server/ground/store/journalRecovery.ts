import { existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Database } from 'sql.js';
import { fsyncDir, replaceDurably, writeDurably } from './durableFiles';
import { readJournal } from './journal';
import { runStatement } from './sqlite';
import { asideName } from './recoveryReport';

/** What replaying the journal at open found (see the top of journal.ts for the rules). */
export interface JournalReplay {
  /** The highest seq the database now holds. */
  seq: number;
  replayed: number;
  tornBytes: number;
  /** Set when only a torn tail must go: the writer cuts the file here. */
  truncateTo?: number;
  lostRecords: number;
  failedRecords: number;
  damagedBytes: number;
  keptAs?: string;
  rewriteError?: string;
}

/** Temp files of an interrupted journal rewrite or rebase: never the journal itself. */
function removeLeftovers(journalPath: string): void {
  const name = basename(journalPath);
  const dir = dirname(journalPath);
  if (!existsSync(dir)) return;
  const leftover = (f: string) =>
    f === `${name}.rebase` || (f.startsWith(`${name}.`) && /^\.\d+\.\d+\.tmp$/.test(f.slice(name.length)));
  for (const f of readdirSync(dir)) if (leftover(f)) rmSync(join(dir, f), { force: true });
}

/**
 * Replays the records after `checkpointSeq` into `db`, each in its own
 * transaction. A record that fails (it touches a row a lost record made) is
 * rolled back and counted lost. When anything was lost, the journal is kept
 * aside as found and rewritten to the records that applied, so new appends
 * follow intact ones and the next start reports nothing new.
 */
export function replayJournal(db: Database, journalPath: string, checkpointSeq: number): JournalReplay {
  removeLeftovers(journalPath);
  const read = readJournal(journalPath);
  let seq = checkpointSeq;
  let replayed = 0;
  let failed = 0;
  const kept: Buffer[] = [];
  read.records.forEach((rec, k) => {
    if (rec.seq <= checkpointSeq) return;
    try {
      db.exec('BEGIN');
      for (const [sql, params] of rec.stmts) runStatement(db, sql, params);
      db.exec('COMMIT');
    } catch {
      db.exec('ROLLBACK');
      failed++;
      return;
    }
    seq = Math.max(seq, rec.seq);
    replayed++;
    kept.push(read.bytes.subarray(...read.ranges[k]));
  });
  // seq rises by one per record, so a gap across a damaged span is the count it swallowed.
  let lostInSpans = 0;
  let damagedBytes = 0;
  for (const d of read.damaged) {
    lostInSpans += Math.max(0, d.beforeSeq - Math.max(d.afterSeq ?? checkpointSeq, checkpointSeq) - 1);
    damagedBytes += d.end - d.start;
  }
  const out: JournalReplay = {
    seq,
    replayed,
    tornBytes: read.tornBytes,
    lostRecords: lostInSpans + failed,
    failedRecords: failed,
    damagedBytes,
  };
  if (read.damaged.length === 0 && failed === 0) {
    if (read.tornBytes > 0) out.truncateTo = read.validBytes;
    return out;
  }
  try {
    // The evidence first: a crash before the rewrite finds the damaged journal again.
    const aside = asideName(journalPath, 'damaged');
    try {
      writeDurably(aside, read.bytes);
    } catch (e) {
      rmSync(aside, { force: true });
      throw e;
    }
    fsyncDir(dirname(journalPath));
    out.keptAs = aside;
    replaceDurably(journalPath, Buffer.concat(kept));
  } catch (e) {
    // The journal stays as found (a torn tail is still cut): read again next start, it loses nothing more.
    out.rewriteError = (e as Error).message;
    if (read.tornBytes > 0) out.truncateTo = read.validBytes;
  }
  return out;
}
