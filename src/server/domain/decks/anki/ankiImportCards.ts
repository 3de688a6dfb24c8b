import { createHash } from 'node:crypto';
import { cardIndexBody } from '../../../ground/search/cardIndexText';
import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx } from '../../../ground/store/store';
import type { ImportPlan, PlannedReview } from './ankiImportPlan';
import { allForIds, ascendingIds, insertRows, runForIds, updateRows } from './sqlBatches';

/**
 * The cards an import reviews. A note Anki made one card of is reviewed on
 * its own card; a note with several gets a child card per Anki card (kept
 * across imports by note guid and ordinal in anki_cards), each reviewed on
 * its own. A deck card a version before this one left on such a note's own
 * card moves to the first child, keeping its review log.
 */

export interface ReviewSource {
  review: PlannedReview;
  /** The study-set card the deck card asks about. */
  sourceId: string;
  guid: string;
}

/** The hash of a card's title and body that says whether it still reads as imported. */
export const importedTextHash = (title: string, body: string) =>
  createHash('sha1').update(`${title}\n${body}`).digest('hex').slice(0, 16);

export function placeReviewCards(
  tx: WriteTx,
  plan: ImportPlan,
  noteIds: readonly string[],
  target: { topicid: string; deckId: string },
  updatedIds: ReadonlySet<string>,
  now: string,
): { sources: ReviewSource[]; childIds: string[] } {
  const multi = plan.notes.flatMap((n, i) => (n.reviews.length > 1 ? [{ n, parent: noteIds[i] }] : []));
  const known = new Map(
    allForIds<{ guid: string; ord: number; noteid: string }>(
      tx,
      `SELECT a.guid, a.ord, a.noteid FROM anki_cards a JOIN notes c ON c.noteid = a.noteid AND c.hidden = 0
       WHERE a.guid IN $IN`,
      multi.map((m) => m.n.guid),
    ).map((r) => [`${r.guid} ${r.ord}`, r.noteid]),
  );
  const parentOf = new Map(multi.map((m) => [m.n.guid, m.parent]));
  const sources: ReviewSource[] = [];
  const inserts: SqlParam[][] = [];
  const updates: SqlParam[][] = [];
  const texts: SqlParam[][] = [];
  const fts: SqlParam[][] = [];
  const repoint: SqlParam[][] = [];
  const fresh = ascendingIds(multi.reduce((sum, m) => sum + m.n.reviews.length, 0));
  let nextFresh = 0;
  plan.notes.forEach((n, i) => {
    if (n.reviews.length <= 1) {
      for (const r of n.reviews) sources.push({ review: r, sourceId: noteIds[i], guid: n.guid });
      return;
    }
    n.reviews.forEach((r, position) => {
      const face = r.face!;
      const prior = known.get(`${n.guid} ${r.ord}`);
      const id = prior ?? fresh[nextFresh++];
      if (prior) updates.push([id, face.title, now]);
      else inserts.push([id, target.topicid, noteIds[i], position, face.title, now, now]);
      if (!prior && position === 0 && updatedIds.has(noteIds[i])) repoint.push([noteIds[i], id]);
      if (face.body) texts.push([id, 0, face.body, 0, 'text']);
      fts.push([id, target.topicid, cardIndexBody(`${face.title}\n${face.body}`)]);
      sources.push({ review: r, sourceId: id, guid: n.guid });
    });
  });
  const childIds = sources.filter((s) => parentOf.has(s.guid)).map((s) => s.sourceId);
  const updated = updates.map((u) => String(u[0]));
  updateRows(tx, 'notes', 'noteid', ['title', 'modified_at'], updates);
  runForIds(tx, 'DELETE FROM note_texts WHERE idx = 0 AND noteid IN $IN', updated);
  runForIds(
    tx,
    'DELETE FROM notes_fts WHERE docid IN (SELECT docid FROM notes_fts_content WHERE c0noteid IN $IN)',
    updated,
  );
  insertRows(tx, 'INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at)', inserts);
  insertRows(tx, 'INSERT INTO note_texts(noteid, idx, text, excerpt, kind)', texts);
  insertRows(tx, 'INSERT INTO notes_fts(noteid, topicid, body)', fts);
  for (const [parent, child] of repoint)
    tx.run('UPDATE deck_cards SET source_note_id = ? WHERE deck_id = ? AND source_note_id = ?', [
      child,
      target.deckId,
      parent,
    ]);
  return { sources, childIds };
}

/** anki_cards, anki_models and each note's type, fields and imported text: what an export gives back. */
export function writeAnkiLinks(tx: WriteTx, plan: ImportPlan, sources: readonly ReviewSource[]): void {
  insertRows(
    tx,
    'INSERT OR REPLACE INTO anki_cards(guid, ord, noteid)',
    // In key order (guid, ord): see ascendingIds.
    sources
      .map((s) => [s.guid, s.review.ord, s.sourceId])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : Number(a[1]) - Number(b[1]))),
  );
  insertRows(
    tx,
    'INSERT OR REPLACE INTO anki_models(mid, model)',
    plan.models.map((m) => [m.id, JSON.stringify(m)]),
  );
}
