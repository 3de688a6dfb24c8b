import { createHash } from 'node:crypto';
import type { WriteTx } from '../store/store';
import { newId } from './ids';

/**
 * Snapshots of a study set's cards, taken inside the transaction that is
 * about to change the set, so the snapshot and the change commit together.
 */
export function takeSnapshotTx(tx: WriteTx, topicid: string, description: string, now: string): string {
  const notes = tx.all('SELECT * FROM notes WHERE topicid = ? ORDER BY noteid', [topicid]);
  const ids = notes.map((n) => n.noteid as string);
  const inList = ids.length ? `(${ids.map(() => '?').join(',')})` : '(NULL)';
  const data = JSON.stringify({
    notes,
    texts: tx.all(`SELECT * FROM note_texts WHERE noteid IN ${inList} ORDER BY noteid, idx`, ids),
    hashtags: tx.all(`SELECT * FROM note_hashtags WHERE noteid IN ${inList} ORDER BY noteid, path`, ids),
    documents: tx.all('SELECT * FROM topic_documents WHERE topicid = ? ORDER BY position', [topicid]),
  });
  const snapshotId = newId();
  tx.run('INSERT INTO snapshots(snapshot_id, topicid, description, note_count, content_hash, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    snapshotId,
    topicid,
    description,
    notes.length,
    createHash('sha256').update(data).digest('hex'),
    data,
    now,
  ]);
  return snapshotId;
}
