import { BridgeError, notFound } from '../../errors';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import type { Store, WriteTx } from '../../ground/store/store';
import { type Db, lastOperationSeq } from './noteRows';
import { type ContentData, contentHash, inlineJson, readSnapshot } from './snapshotContent';
import { SnapshotFileError, type SnapshotFiles } from './snapshotFiles';
import type { RowSection } from './snapshotIndex';
import { type SnapshotView, viewOf } from './snapshotView';

/**
 * Snapshots of a study set's cards. Each is taken inside the transaction
 * that is about to change the set (or alone, for an agent's "snapshot now"),
 * so the snapshot and the change commit together. `op_seq` marks where the
 * snapshot sits in the operation log: restore reads the person's edits after it.
 * The content itself is a file (snapshotFiles.ts) named by `content_hash`,
 * made durable before the row is journaled; the row's `data` stays empty
 * (rows from before snapshot files hold it inline until snapshotMigration.ts moves it).
 */

export type SnapshotKind = 'agent' | 'protection' | 'pre_import' | 'pre_delete' | 'pre_remove';

export interface SnapshotRow {
  snapshot_id: string;
  topicid: string;
  description: string;
  note_count: number;
  content_hash: string;
  created_at: string;
  op_seq: number;
  kind: string;
  /** 1-based place in the set's history (insertion order). */
  version: number;
}

export interface SnapshotRecord {
  snapshotId: string;
  topicid: string;
  description: string;
  label: string;
  noteCount: number;
  createdAt: string;
  kind: string;
  version: number;
}

// Insertion order (rowid) is the history's order: timestamps can tie within a millisecond.
const SELECT_SNAPSHOTS = `
SELECT snapshot_id, topicid, description, note_count, content_hash, created_at, op_seq, kind,
  (SELECT count(*) FROM snapshots o WHERE o.topicid = s.topicid AND o.rowid <= s.rowid) AS version
FROM snapshots s`;

/** What the UI shows: an agent's snapshot is "Agent: <description>"; the server's own ones say what they preceded. */
export function snapshotLabel(kind: string, description: string): string {
  if (kind === 'agent') return description ? `Agent: ${description}` : 'Agent snapshot';
  return description;
}

export const toRecord = (r: SnapshotRow): SnapshotRecord => ({
  snapshotId: r.snapshot_id,
  topicid: r.topicid,
  description: r.description,
  label: snapshotLabel(r.kind, r.description),
  noteCount: r.note_count,
  createdAt: r.created_at,
  kind: r.kind,
  version: r.version,
});

/** The label already says "Agent:", so one or more leading "Agent:" the caller wrote are dropped. */
export const stripAgentPrefix = (description: string) => description.replace(/^(\s*agent\s*:)+/i, '').trim();

export function getSnapshot(db: Db, snapshotId: string): SnapshotRow {
  const row = db.get<SnapshotRow>(`${SELECT_SNAPSHOTS} WHERE s.snapshot_id = ?`, [snapshotId]);
  if (!row)
    throw notFound(
      'SNAPSHOT_NOT_FOUND',
      `No snapshot ${snapshotId}. GET /study-sets/{id}/snapshots lists a set's snapshots.`,
      { snapshotId },
    );
  return row;
}

export function lastSnapshot(db: Db, topicid: string): SnapshotRow | undefined {
  return db.get<SnapshotRow>(`${SELECT_SNAPSHOTS} WHERE s.topicid = ? ORDER BY s.rowid DESC LIMIT 1`, [topicid]);
}

export interface WrittenSnapshot {
  snapshotId: string;
  noteCount: number;
  contentHash: string;
  createdAt: string;
}

/** Writes a snapshot of the set's current content (`data`: readSnapshot's answer, and `hash` its hash, when the caller has them already). */
export function writeSnapshotTx(
  tx: WriteTx,
  files: SnapshotFiles,
  topicid: string,
  kind: SnapshotKind,
  description: string,
  now: string,
  data: ContentData = readSnapshot(tx, topicid),
  hash = contentHash(data.bytes),
): WrittenSnapshot {
  const noteCount =
    tx.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE topicid = ? AND hidden = 0', [topicid])?.n ?? 0;
  const snapshot = { snapshotId: newId(), noteCount, contentHash: hash, createdAt: now };
  // Durable before the row: the journal is written only after this transaction returns.
  files.put(data, snapshot.contentHash);
  tx.run(
    'INSERT INTO snapshots(snapshot_id, topicid, description, note_count, content_hash, data, created_at, op_seq, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [
      snapshot.snapshotId,
      topicid,
      description,
      snapshot.noteCount,
      snapshot.contentHash,
      '',
      now,
      lastOperationSeq(tx, topicid),
      kind,
    ],
  );
  return snapshot;
}

/** The older entry point (document removal): a snapshot taken before the change, default kind pre_remove. */
export function takeSnapshotTx(
  tx: WriteTx,
  files: SnapshotFiles,
  topicid: string,
  description: string,
  now: string,
  kind: SnapshotKind = 'pre_remove',
): string {
  return writeSnapshotTx(tx, files, topicid, kind, description, now).snapshotId;
}

/**
 * The snapshot's content: from its file, or inline in the row (a row not
 * migrated yet). A missing or damaged content answers 422
 * SNAPSHOT_UNREADABLE naming the snapshot and what is wrong; nothing else
 * about the set is affected. The file is read and checked here; rows are
 * parsed when asked for (snapshotView.ts), and damage found then answers the
 * same 422.
 */
export function openStoredSnapshot(db: Db, files: SnapshotFiles, snap: SnapshotRow): SnapshotView {
  const inline = db.get<{ data: string | Uint8Array }>(
    'SELECT data FROM snapshots WHERE snapshot_id = ? AND length(data) > 0',
    [snap.snapshot_id],
  )?.data;
  const fail = (e: unknown): never => {
    throw unreadable(files, snap, inline !== undefined, e);
  };
  let view: SnapshotView;
  try {
    view = viewOf(inline !== undefined ? inlineJson(inline) : files.open(snap.content_hash));
  } catch (e) {
    return fail(e);
  }
  const guard = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      return fail(e);
    }
  };
  return {
    get noteIds() {
      return guard(() => view.noteIds);
    },
    columns: (section: RowSection) => guard(() => view.columns(section)),
    cards: (ids: ReadonlySet<string>) => guard(() => view.cards(ids)),
    full: () => guard(() => view.full()),
    stored: view.stored,
  };
}

function unreadable(files: SnapshotFiles, snap: SnapshotRow, inline: boolean, e: unknown): BridgeError {
  const reason = e instanceof SnapshotFileError ? e.reason : 'corrupt';
  const problem = (e as Error).message;
  const where = inline
    ? 'its content stored in the database'
    : `its content file ${safeDisplayPath(files, snap.content_hash)}`;
  return new BridgeError(
    'SNAPSHOT_UNREADABLE',
    422,
    `Snapshot ${snap.snapshot_id} (version ${snap.version} of study set ${snap.topicid}) cannot be read: ${where} ${reason === 'missing' ? 'is missing' : `is damaged (${problem})`}. Nothing was changed. The set's other snapshots are not affected; POST /study-sets/{id}/snapshots takes a new one.`,
    {
      snapshotId: snap.snapshot_id,
      topicid: snap.topicid,
      version: snap.version,
      reason,
      problem,
      contentHash: snap.content_hash,
      ...(inline ? {} : { file: safeDisplayPath(files, snap.content_hash) }),
    },
  );
}

const safeDisplayPath = (files: SnapshotFiles, hash: string) => {
  try {
    return files.displayPath(hash);
  } catch {
    return '(no valid content hash)';
  }
};

/** A set's snapshots, newest first. */
export function listSnapshots(store: Store, topicid: string): SnapshotRecord[] {
  assertStudySet(store, topicid);
  return store
    .all<SnapshotRow>(`${SELECT_SNAPSHOTS} WHERE s.topicid = ? ORDER BY s.rowid DESC`, [topicid])
    .map(toRecord);
}

/**
 * An agent's "snapshot now". When the set's content is exactly what the last
 * snapshot holds, that snapshot is answered again (created:false) instead of
 * writing a duplicate.
 */
export async function createAgentSnapshot(store: Store, files: SnapshotFiles, topicid: string, rawDescription: string) {
  assertStudySet(store, topicid);
  const description = stripAgentPrefix(rawDescription);
  return store.write((tx) => {
    const data = readSnapshot(tx, topicid);
    const hash = contentHash(data.bytes);
    const last = lastSnapshot(tx, topicid);
    // Reused only while its content is safe on disk; putting it again repairs a damaged or missing file.
    if (last && last.content_hash === hash && reusable(tx, files, last, data)) {
      return {
        ...toRecord(last),
        created: false,
        warnings: [
          {
            code: 'SNAPSHOT_REUSED',
            message: `The set's cards are unchanged since snapshot version ${last.version} (${last.created_at}); that snapshot is answered again and no new one was written (its description stays "${last.description}").`,
          },
        ],
      };
    }
    const written = writeSnapshotTx(tx, files, topicid, 'agent', description, nowIso(), data, hash);
    return { ...toRecord(getSnapshot(tx, written.snapshotId)), created: true };
  });
}

function reusable(db: Db, files: SnapshotFiles, last: SnapshotRow, data: ContentData): boolean {
  if (db.get('SELECT 1 FROM snapshots WHERE snapshot_id = ? AND length(data) > 0', [last.snapshot_id])) return true; // inline, not migrated yet
  try {
    files.put(data, last.content_hash);
    return true;
  } catch {
    return false;
  }
}
