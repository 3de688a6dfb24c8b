import { createHash } from 'node:crypto';
import type { SqlParam } from '../store/journal';
import type { Row, WriteTx } from '../store/store';
import { type Db, type NoteRow, purgeNotes } from './noteRows';

/**
 * What a snapshot holds: every card of a set (hidden ones too) with its
 * texts, hashtags, parts and the links touching it, plus the set's document
 * list (recorded for the record; restore writes back only the cards). Rows
 * are kept exactly as stored, so a restore gives back the very same cards.
 */
export interface SnapshotContent {
  format: 1;
  notes: NoteRow[];
  texts: Row[];
  hashtags: Row[];
  parts: Row[];
  links: Row[];
  documents: Row[];
}

const OF_SET = 'SELECT noteid FROM notes WHERE topicid = ?';

/** Reads the set's content in a fixed order, so equal content gives equal JSON. */
export function readSnapshotContent(db: Db, topicid: string): SnapshotContent {
  return {
    format: 1,
    notes: db.all<NoteRow>('SELECT * FROM notes WHERE topicid = ? ORDER BY noteid', [topicid]),
    texts: db.all(`SELECT * FROM note_texts WHERE noteid IN (${OF_SET}) ORDER BY noteid, idx`, [topicid]),
    hashtags: db.all(`SELECT * FROM note_hashtags WHERE noteid IN (${OF_SET}) ORDER BY noteid, path`, [topicid]),
    parts: db.all(`SELECT * FROM note_parts WHERE noteid IN (${OF_SET}) ORDER BY noteid, idx, content_id`, [topicid]),
    links: db.all(`SELECT * FROM note_links WHERE noteid IN (${OF_SET}) OR target_id IN (${OF_SET}) ORDER BY noteid, target_id`, [topicid, topicid]),
    documents: db.all('SELECT * FROM topic_documents WHERE topicid = ? ORDER BY position, bookmd5', [topicid]),
  };
}

/** Deterministic JSON (column order is the table's); part images travel as base64. */
export function serializeContent(c: SnapshotContent): string {
  return toJson(c);
}

/** JSON with byte arrays as `{$b64}` (as the journal writes them). */
export const toJson = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? { $b64: Buffer.from(x).toString('base64') } : x));

export function parseContent(data: string): SnapshotContent {
  const c = JSON.parse(data, (_k, v) => (v && typeof v === 'object' && typeof v.$b64 === 'string' ? new Uint8Array(Buffer.from(v.$b64, 'base64')) : v));
  // Snapshots written before the card library held only notes, texts, hashtags and documents.
  return { format: 1, notes: c.notes ?? [], texts: c.texts ?? [], hashtags: c.hashtags ?? [], parts: c.parts ?? [], links: c.links ?? [], documents: c.documents ?? [] };
}

export const contentHash = (json: string) => createHash('sha256').update(json).digest('hex');

/** Cards a person sees: hidden ones are kept in the snapshot but not counted. */
export const visibleCount = (c: SnapshotContent) => c.notes.filter((n) => !n.hidden).length;

/** The text search indexes for a card: the same text `reindexNote` writes (title, texts by index, then #tags). */
function ftsBody(note: NoteRow, texts: readonly Row[], tags: readonly Row[]): string {
  return [note.title, ...texts.map((t) => String(t.text)), ...tags.map((t) => `#${String(t.path)}`)].join('\n');
}

/** Columns of a table as they are now (a later migration may have added some a snapshot lacks). */
function columnsOf(tx: WriteTx, table: string): Set<string> {
  return new Set(tx.all<{ name: string }>(`PRAGMA table_info(${table})`).map((r) => r.name));
}

/** Multi-row INSERTs: a 10k-card restore is a few hundred statements, not tens of thousands. */
function insertRows(tx: WriteTx, table: string, rows: readonly Row[]): void {
  if (!rows.length) return;
  const existing = columnsOf(tx, table);
  const cols = Object.keys(rows[0]).filter((c) => existing.has(c));
  const perStatement = Math.max(1, Math.floor(900 / cols.length));
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const tuple = `(${cols.map(() => '?').join(',')})`;
    tx.run(
      `INSERT INTO ${table}(${cols.join(',')}) VALUES ${chunk.map(() => tuple).join(',')}`,
      chunk.flatMap((r) => cols.map((c) => (r[c] ?? null) as SqlParam)),
    );
  }
}

/** Snapshot card ids that now belong to another set (cards never change sets, so this guards against corrupt data). */
export function idsTakenElsewhere(db: Db, topicid: string, c: SnapshotContent): string[] {
  const taken: string[] = [];
  for (let i = 0; i < c.notes.length; i += 500) {
    const ids = c.notes.slice(i, i + 500).map((n) => n.noteid);
    const rows = db.all<{ noteid: string }>(`SELECT noteid FROM notes WHERE topicid <> ? AND noteid IN (${ids.map(() => '?').join(',')})`, [topicid, ...ids]);
    taken.push(...rows.map((r) => r.noteid));
  }
  return taken;
}

/**
 * Replaces every card of the set with the snapshot's rows, exactly (ids,
 * positions, timestamps, hidden flags), and indexes the visible ones for
 * search. Links to cards outside the set are kept only where the other card
 * still exists. Document membership and tables of contents are not touched.
 */
export function writeBackContent(tx: WriteTx, topicid: string, c: SnapshotContent): void {
  const current = tx.all<{ noteid: string }>('SELECT noteid FROM notes WHERE topicid = ?', [topicid]).map((r) => r.noteid);
  purgeNotes(tx, current);
  insertRows(tx, 'notes', c.notes as unknown as Row[]);
  insertRows(tx, 'note_texts', c.texts);
  insertRows(tx, 'note_hashtags', c.hashtags);
  insertRows(tx, 'note_parts', c.parts);

  const inSet = new Set(c.notes.map((n) => n.noteid));
  const outside = [...new Set(c.links.flatMap((l) => [String(l.noteid), String(l.target_id)]).filter((id) => !inSet.has(id)))];
  const alive = new Set(outside.length ? tx.all<{ noteid: string }>(`SELECT noteid FROM notes WHERE noteid IN (${outside.map(() => '?').join(',')})`, outside).map((r) => r.noteid) : []);
  const links = c.links.filter((l) => [l.noteid, l.target_id].every((id) => inSet.has(String(id)) || alive.has(String(id))));
  // A link from outside may have been re-created since; the snapshot's copy is the same row.
  for (const l of links) tx.run('DELETE FROM note_links WHERE noteid = ? AND target_id = ?', [l.noteid as SqlParam, l.target_id as SqlParam]);
  insertRows(tx, 'note_links', links);

  const group = <T extends Row>(rows: readonly T[]) => {
    const m = new Map<string, T[]>();
    for (const r of rows) {
      const k = String(r.noteid);
      const list = m.get(k);
      if (list) list.push(r);
      else m.set(k, [r]);
    }
    return m;
  };
  const texts = group(c.texts);
  const tags = group(c.hashtags);
  const fts = c.notes
    .filter((n) => !n.hidden)
    .map((n) => ({ noteid: n.noteid, topicid: n.topicid, body: ftsBody(n, texts.get(n.noteid) ?? [], tags.get(n.noteid) ?? []) }));
  insertRows(tx, 'notes_fts', fts);
}
