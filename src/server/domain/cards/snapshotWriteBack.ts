import type { Row, WriteTx } from '../../ground/store/store';
import { cardIndexBody } from '../../ground/search/cardIndexText';
import { type Db, type NoteRow, inList } from './noteRows';
import { pickCards, type SnapshotContent } from './snapshotContent';
import { rewriteSetLinks, rewriteSnapshotCards } from './rows/cardRowsRestore';

/**
 * Writing a snapshot's cards back (snapshotRestore.ts): only what differs
 * from the set's cards now is rewritten, and the search index only for the
 * cards whose text changed.
 */

/** The text search indexes for a card: the same text `reindexNote` writes (title, texts by index, then #tags). */
function ftsBody(note: NoteRow, texts: readonly Row[], tags: readonly Row[]): string {
  return cardIndexBody(
    [note.title, ...texts.map((t) => String(t.text)), ...tags.map((t) => `#${String(t.path)}`)].join('\n'),
  );
}

/**
 * Snapshot card ids that now belong to another set (cards never change sets, so this guards against corrupt data).
 * Ids the set holds now (`here`, read in the same transaction) are not looked up.
 */
export function idsTakenElsewhere(
  db: Db,
  topicid: string,
  snapIds: readonly string[],
  here: ReadonlySet<string> = new Set(),
): string[] {
  const ids = snapIds.filter((id) => !here.has(id));
  if (!ids.length) return [];
  return db
    .all<{ noteid: string }>(
      `SELECT noteid FROM notes WHERE topicid <> ? AND noteid IN (SELECT value FROM json_each(?))`,
      [topicid, JSON.stringify(ids)],
    )
    .map((r) => r.noteid);
}

const groupByNote = (rows: readonly Row[]) => {
  const m = new Map<string, Row[]>();
  for (const r of rows) {
    const k = String(r.noteid);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
};

const sameValue = (a: unknown, b: unknown) =>
  a === b ||
  (a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b));

/** Same columns, same values: compared in place (serialising 2 × 10k cards to compare them cost most of a restore). */
function sameRow(a: object, b: object): boolean {
  if (a === b) return true; // an unedited card's row is the snapshot's own (cardEdits.ts)
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka)
    if (!(k in b) || !sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

const sameRows = (a: readonly Row[] | undefined, b: readonly Row[] | undefined) => {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((r, i) => sameRow(r, y[i]));
};

/** Per card: its row, and what search and batch-get read with it (texts, tags, parts), grouped for comparing. */
function cardKeys(c: SnapshotContent) {
  const texts = groupByNote(c.texts);
  const tags = groupByNote(c.hashtags);
  const parts = groupByNote(c.parts);
  return { notes: new Map(c.notes.map((n) => [n.noteid, n])), texts, tags, parts };
}

/**
 * Makes the set's cards exactly the snapshot's (ids, positions, timestamps,
 * hidden flags, texts, tags, parts, links) by rewriting only what differs
 * from `current`: a card whose row alone changed (moved, recoloured) keeps
 * its search entry; the search index is rewritten only for cards whose
 * title, texts, tags or visibility changed. Links to cards outside the set
 * are restored only where the other card still exists. Document membership
 * and tables of contents are not touched. With `only`, the other cards are
 * known to be as the snapshot has them (cardEdits.ts) and are not compared,
 * and `snap` need hold only the rows of `only` (with every link); `inSet`
 * is then every card id of the snapshot.
 */
export function writeBackContent(
  tx: WriteTx,
  topicid: string,
  snap: SnapshotContent,
  current: SnapshotContent,
  only?: ReadonlySet<string>,
  inSet: ReadonlySet<string> = new Set(snap.notes.map((n) => n.noteid)),
): { rewritten: string[] } {
  const want = cardKeys(only ? pickCards(snap, only) : snap);
  const have = cardKeys(only ? pickCards(current, only) : current);
  const rowOnly: string[] = [];
  const full: string[] = [];
  const sameContent = (id: string) =>
    sameRows(have.texts.get(id), want.texts.get(id)) &&
    sameRows(have.tags.get(id), want.tags.get(id)) &&
    sameRows(have.parts.get(id), want.parts.get(id));
  for (const [id, w] of want.notes) {
    const h = have.notes.get(id);
    if (!h) full.push(id);
    else if (h.title !== w.title || h.hidden !== w.hidden || !sameContent(id)) full.push(id);
    else if (!sameRow(h, w)) rowOnly.push(id);
  }
  const gone = [...have.notes.keys()].filter((id) => !want.notes.has(id));

  // Links first: purgeNotes drops every link touching a purged card; the wanted ones are written back below.
  const outside = [
    ...new Set(snap.links.flatMap((l) => [String(l.noteid), String(l.target_id)]).filter((id) => !inSet.has(id))),
  ];
  const alive = new Set(
    outside.length
      ? tx
          .all<{ noteid: string }>(`SELECT noteid FROM notes WHERE noteid IN ${inList(outside.length)}`, outside)
          .map((r) => r.noteid)
      : [],
  );
  const wantLinks = snap.links.filter((l) =>
    [l.noteid, l.target_id].every((id) => inSet.has(String(id)) || alive.has(String(id))),
  );

  const fullSet = new Set(full);
  const index = snap.notes
    .filter((n) => fullSet.has(n.noteid) && !n.hidden)
    .map((n) => ({
      noteid: n.noteid,
      topicid: n.topicid,
      body: ftsBody(n, want.texts.get(n.noteid) ?? [], want.tags.get(n.noteid) ?? []),
    }));
  rewriteSnapshotCards(tx, snap, { gone, full, rowOnly }, index);
  rewriteSetLinks(tx, topicid, wantLinks);
  return { rewritten: [...full, ...rowOnly, ...gone] };
}
