import type { Db } from './noteRows';
import {
  type ContentData,
  emptyContent,
  parseContent,
  readCards,
  readSnapshot,
  type SnapshotContent,
} from './snapshotContent';
import { ROW_SECTIONS } from './snapshotIndex';
import { spliceContent } from './snapshotSplice';
import type { SnapshotView } from './snapshotView';

/**
 * What a restore compares with a snapshot, without reading every card of
 * the set. Schema migration 11 stamps each card whose row, texts, hashtags
 * or parts change with the newest snapshot's rowid (table card_edits), so
 * only cards stamped at or after the snapshot's rowid can differ from it.
 * Those, the cards created since and the cards deleted since are the
 * `candidates`; `current` holds the store's rows of the ones still there.
 * Every other card is as the snapshot has it.
 *
 * When a table's columns are not the ones the snapshot's rows have (a
 * migration added one: no trigger fires for that), every card differs, so
 * `current` is all of the set's content (read whole, parsed) and there are no
 * candidates: all cards are compared, as before migration 11.
 */
export interface CurrentCards {
  current: SnapshotContent;
  /** Cards that can differ from the snapshot; undefined: any card can. */
  candidates?: ReadonlySet<string>;
  /** The set's card ids now. */
  ids: ReadonlySet<string>;
  /** The set's content now, as a snapshot file holds it (for the protection snapshot). */
  data: ContentData;
}

export function currentCardsSince(db: Db, topicid: string, snapshotId: string, snap: SnapshotView): CurrentCards {
  // One JSON string, not 10k row objects (sql.js builds each row through several wasm calls).
  const ids = new Set(
    JSON.parse(
      db.get<{ j: string }>('SELECT json_group_array(noteid) AS j FROM notes WHERE topicid = ?', [topicid])!.j,
    ) as string[],
  );
  if (!sameColumns(db, snap)) {
    const data = readSnapshot(db, topicid);
    return { current: parseContent(data.bytes.toString('utf8')), ids, data };
  }
  const rowid = db.get<{ r: number }>('SELECT rowid AS r FROM snapshots WHERE snapshot_id = ?', [snapshotId])!.r;
  // The stamp index first: few cards changed since a recent snapshot (a join from the set's cards would look up each).
  const edited = db
    .all<{ noteid: string }>('SELECT noteid FROM card_edits WHERE stamp >= ?', [rowid])
    .map((r) => r.noteid)
    .filter((id) => ids.has(id));
  const candidates = new Set(edited);
  const inSnap = new Set<string>();
  for (const id of snap.noteIds) {
    inSnap.add(id);
    if (!ids.has(id)) candidates.add(id); // deleted since
  }
  const created = [...ids].filter((id) => !inSnap.has(id));
  for (const id of created) candidates.add(id);
  const read = [...new Set([...edited, ...created])];
  const rows = read.length ? readCards(db, topicid, read) : undefined;
  const current = rows ? parseContent(rows.bytes.toString('utf8')) : emptyContent();
  // The rest of the set is the snapshot's rows: built from them, not rendered again (unless that cannot be done exactly).
  const data = spliceContent(db, topicid, snap, candidates, rows, ids) ?? readSnapshot(db, topicid);
  return { current, candidates, ids, data };
}

const TABLES = { notes: 'notes', texts: 'note_texts', hashtags: 'note_hashtags', parts: 'note_parts' } as const;

/** Whether each section's rows have exactly the table's columns now (an empty section tells nothing and passes). */
function sameColumns(db: Db, snap: SnapshotView): boolean {
  return ROW_SECTIONS.every((section) => {
    const keys = snap.columns(section);
    if (!keys.length) return true;
    const cols = db.all<{ name: string }>(`PRAGMA table_info(${TABLES[section]})`).map((c) => c.name);
    return keys.length === cols.length && cols.every((c) => keys.includes(c));
  });
}
