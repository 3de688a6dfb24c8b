import type { Db } from './noteRows';
import { parseContent, readCardsJson, type SnapshotContent } from './snapshotContent';

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
 * `current` is all of the set's content (`bytes`, parsed) and there are no
 * candidates: all cards are compared, as before migration 11.
 */
export interface CurrentCards {
  current: SnapshotContent;
  /** Cards that can differ from the snapshot; undefined: any card can. */
  candidates?: ReadonlySet<string>;
  /** The set's card ids now. */
  ids: ReadonlySet<string>;
}

export function currentCardsSince(db: Db, topicid: string, snapshotId: string, snap: SnapshotContent, bytes: Buffer): CurrentCards {
  // One JSON string, not 10k row objects (sql.js builds each row through several wasm calls).
  const ids = new Set(JSON.parse(db.get<{ j: string }>('SELECT json_group_array(noteid) AS j FROM notes WHERE topicid = ?', [topicid])!.j) as string[]);
  if (!sameColumns(db, snap)) return { current: parseContent(bytes.toString('utf8')), ids };
  const rowid = db.get<{ r: number }>('SELECT rowid AS r FROM snapshots WHERE snapshot_id = ?', [snapshotId])!.r;
  // The stamp index first: few cards changed since a recent snapshot (a join from the set's cards would look up each).
  const edited = db
    .all<{ noteid: string }>('SELECT noteid FROM card_edits WHERE stamp >= ?', [rowid])
    .map((r) => r.noteid)
    .filter((id) => ids.has(id));
  const candidates = new Set(edited);
  const inSnap = new Set<string>();
  for (const n of snap.notes) {
    inSnap.add(n.noteid);
    if (!ids.has(n.noteid)) candidates.add(n.noteid); // deleted since
  }
  const created = [...ids].filter((id) => !inSnap.has(id));
  for (const id of created) candidates.add(id);
  const read = [...new Set([...edited, ...created])];
  const current = read.length ? readCardsJson(db, topicid, read) : { format: 1 as const, notes: [], texts: [], hashtags: [], parts: [], links: [], documents: [] };
  return { current, candidates, ids };
}

const TABLES = [
  ['notes', 'notes'],
  ['texts', 'note_texts'],
  ['hashtags', 'note_hashtags'],
  ['parts', 'note_parts'],
] as const;

/** Whether each section's rows have exactly the table's columns now (an empty section tells nothing and passes). */
function sameColumns(db: Db, snap: SnapshotContent): boolean {
  return TABLES.every(([section, table]) => {
    const rows = snap[section] as readonly object[];
    if (!rows.length) return true;
    const cols = db.all<{ name: string }>(`PRAGMA table_info(${table})`).map((c) => c.name);
    const keys = Object.keys(rows[0]);
    return keys.length === cols.length && cols.every((c) => keys.includes(c));
  });
}
