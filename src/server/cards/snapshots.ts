import { notFound } from '../errors';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import type { Store, WriteTx } from '../store/store';
import { type Db, lastOperationSeq } from './noteRows';
import { contentHash, packContent, readSnapshotJson } from './snapshotContent';

/**
 * Snapshots of a study set's cards. Each is taken inside the transaction
 * that is about to change the set (or alone, for an agent's "snapshot now"),
 * so the snapshot and the change commit together. `op_seq` marks where the
 * snapshot sits in the operation log: restore reads the person's edits after it.
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
  if (!row) throw notFound('SNAPSHOT_NOT_FOUND', `No snapshot ${snapshotId}. GET /study-sets/{id}/snapshots lists a set's snapshots.`, { snapshotId });
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

/** Writes a snapshot of the set's current content (`data`: its JSON when the caller has just read it). */
export function writeSnapshotTx(tx: WriteTx, topicid: string, kind: SnapshotKind, description: string, now: string, data = readSnapshotJson(tx, topicid)): WrittenSnapshot {
  const noteCount = tx.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE topicid = ? AND hidden = 0', [topicid])?.n ?? 0;
  const snapshot = { snapshotId: newId(), noteCount, contentHash: contentHash(data), createdAt: now };
  tx.run('INSERT INTO snapshots(snapshot_id, topicid, description, note_count, content_hash, data, created_at, op_seq, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
    snapshot.snapshotId,
    topicid,
    description,
    snapshot.noteCount,
    snapshot.contentHash,
    packContent(data),
    now,
    lastOperationSeq(tx, topicid),
    kind,
  ]);
  return snapshot;
}

/** The older entry point (document removal): a snapshot taken before the change, default kind pre_remove. */
export function takeSnapshotTx(tx: WriteTx, topicid: string, description: string, now: string, kind: SnapshotKind = 'pre_remove'): string {
  return writeSnapshotTx(tx, topicid, kind, description, now).snapshotId;
}

/** A set's snapshots, newest first. */
export function listSnapshots(store: Store, topicid: string): SnapshotRecord[] {
  assertStudySet(store, topicid);
  return store.all<SnapshotRow>(`${SELECT_SNAPSHOTS} WHERE s.topicid = ? ORDER BY s.rowid DESC`, [topicid]).map(toRecord);
}

/**
 * An agent's "snapshot now". When the set's content is exactly what the last
 * snapshot holds, that snapshot is answered again (created:false) instead of
 * writing a duplicate.
 */
export async function createAgentSnapshot(store: Store, topicid: string, rawDescription: string) {
  assertStudySet(store, topicid);
  const description = stripAgentPrefix(rawDescription);
  return store.write((tx) => {
    const data = readSnapshotJson(tx, topicid);
    const hash = contentHash(data);
    const last = lastSnapshot(tx, topicid);
    if (last && last.content_hash === hash) {
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
    const written = writeSnapshotTx(tx, topicid, 'agent', description, nowIso(), data);
    return { ...toRecord(getSnapshot(tx, written.snapshotId)), created: true };
  });
}
