import type { Store } from '../../ground/store/store';
import { contentHash, inlineJson } from './snapshotContent';
import type { SnapshotFiles } from './snapshotFiles';

const BATCH = 20;

/**
 * At start, before listening: moves snapshot contents still held in
 * library.db (rows from before snapshot files, test/api/snapshotFiles.test.ts: a deflated blob, or plain JSON text)
 * into content files, then empties the rows' `data`. Per batch the files are
 * made durable first, then one store.write updates the rows, so a crash
 * anywhere leaves each row either inline or pointing at a complete file.
 * Idempotent: a second run finds nothing inline. A row whose inline content
 * cannot be decoded stays as it is (restoring it answers SNAPSHOT_UNREADABLE).
 * Then removes the files no row references (left by a transaction that
 * rolled back, a crash, or a deleted set).
 */
export async function moveSnapshotsToFiles(
  store: Store,
  files: SnapshotFiles,
): Promise<{ moved: number; undecodable: number; removedFiles: number }> {
  let moved = 0;
  let undecodable = 0;
  let after = 0;
  for (;;) {
    const rows = store.all<{ rowid: number; snapshot_id: string; data: string | Uint8Array }>(
      'SELECT rowid, snapshot_id, data FROM snapshots WHERE rowid > ? AND length(data) > 0 ORDER BY rowid LIMIT ?',
      [after, BATCH],
    );
    if (!rows.length) break;
    after = rows[rows.length - 1].rowid;
    const done: Array<{ id: string; hash: string }> = [];
    for (const r of rows) {
      let json: string;
      try {
        json = inlineJson(r.data);
        JSON.parse(json);
      } catch {
        undecodable++;
        continue;
      }
      done.push({ id: r.snapshot_id, hash: files.put(json, contentHash(json)) });
    }
    if (done.length) {
      // content_hash becomes the file's name: the hash of exactly these bytes.
      await store.write((tx) => {
        for (const d of done)
          tx.run(`UPDATE snapshots SET data = '', content_hash = ? WHERE snapshot_id = ?`, [d.hash, d.id]);
      });
      moved += done.length;
    }
  }
  const referenced = new Set(
    store.all<{ h: string }>('SELECT DISTINCT content_hash AS h FROM snapshots').map((r) => r.h),
  );
  const { removed } = files.sweep(referenced);
  return { moved, undecodable, removedFiles: removed };
}
