import { createHash } from 'node:crypto';
import type { WriteTx } from '../../../ground/store/store';
import { drained, type WriteSteps } from '../../../ground/store/writeSteps';
import type { ImportPlan, PlannedReview } from './ankiImportPlan';
import { allForIdsSteps, ascendingIds, insertRowsSteps } from './sqlBatches';
import {
  clearCardContentSteps,
  insertCardRowsSteps,
  updateTitlesSteps,
  type PlannedCardRow,
  type PlannedIndexRow,
  type PlannedText,
} from '../../cards/rows/cardRowsBatch';

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

type Placed = { sources: ReviewSource[]; childIds: string[] };
/** Child cards made before they are written: one multi-row statement's worth, so their rows die young. */
const ROWS_PER_WRITE = 200;

export function placeReviewCards(...args: Parameters<typeof placeReviewCardsSteps>): Placed {
  return drained(placeReviewCardsSteps(...args));
}

/**
 * placeReviewCards, yielding after each statement (writeSteps.ts). With `index`, the child cards' index rows go there
 * for the caller to write after all its cards (insertIndexRowsSteps), not beside each batch.
 */
export function* placeReviewCardsSteps(
  tx: WriteTx,
  plan: ImportPlan,
  noteIds: readonly string[],
  target: { topicid: string; deckId: string },
  updatedIds: ReadonlySet<string>,
  now: string,
  index?: PlannedIndexRow[],
): WriteSteps<Placed> {
  const multi = plan.notes.flatMap((n, i) => (n.reviews.length > 1 ? [{ n, parent: noteIds[i] }] : []));
  const parentOf = new Map(multi.map((m) => [m.n.guid, m.parent]));
  const links = yield* allForIdsSteps<{ guid: string; ord: number; noteid: string }>(
    tx,
    `SELECT a.guid, a.ord, a.noteid FROM anki_cards a JOIN notes c ON c.noteid = a.noteid AND c.hidden = 0
     WHERE a.guid IN $IN`,
    multi.map((m) => m.n.guid),
  );
  // Child cards by (guid, ord); a link to the note itself says which Anki card its own review card was.
  const known = new Map(
    links.filter((r) => r.noteid !== parentOf.get(r.guid)).map((r) => [`${r.guid} ${r.ord}`, r.noteid]),
  );
  const ownOrd = new Map(links.filter((r) => r.noteid === parentOf.get(r.guid)).map((r) => [r.guid, r.ord]));
  yield* retitleKnownChildren(tx, multi, known, now);
  const sources: ReviewSource[] = [];
  const repoint: [string, string][] = [];
  const fresh = ascendingIds(multi.reduce((sum, m) => sum + m.n.reviews.length, 0));
  let nextFresh = 0;
  // Rows are made a chunk at a time as they are written (held until the last, 40,000 cards' grew the old generation).
  let rows = { cards: [] as PlannedCardRow[], texts: [] as PlannedText[], index: [] as PlannedIndexRow[] };
  const write = function* () {
    if (index) for (const row of rows.index) index.push(row);
    yield* insertCardRowsSteps(tx, index ? { cards: rows.cards, texts: rows.texts } : rows);
    rows = { cards: [], texts: [], index: [] };
  };
  for (const [i, n] of plan.notes.entries()) {
    if (i % 1000 === 999) yield;
    if (rows.index.length >= ROWS_PER_WRITE) yield* write();
    if (n.reviews.length <= 1) {
      for (const r of n.reviews) sources.push({ review: r, sourceId: noteIds[i], guid: n.guid });
      continue;
    }
    // The note's own review card goes to the child of its Anki card (of the first when that is not known or gone).
    const own = ownOrd.get(n.guid);
    const ownAt = Math.max(
      0,
      n.reviews.findIndex((r) => r.ord === own),
    );
    n.reviews.forEach((r, position) => {
      const face = r.face!;
      const prior = known.get(`${n.guid} ${r.ord}`);
      const id = prior ?? fresh[nextFresh++];
      if (!prior)
        rows.cards.push({
          noteid: id,
          topicid: target.topicid,
          parentId: noteIds[i],
          position,
          title: face.title,
          now,
        });
      if (!prior && position === ownAt && updatedIds.has(noteIds[i])) repoint.push([noteIds[i], id]);
      if (face.body) rows.texts.push({ noteid: id, idx: 0, text: face.body });
      rows.index.push({ noteid: id, topicid: target.topicid, text: `${face.title}\n${face.body}` });
      sources.push({ review: r, sourceId: id, guid: n.guid });
    });
  }
  yield* write();
  const childIds = sources.filter((s) => parentOf.has(s.guid)).map((s) => s.sourceId);
  for (const [parent, child] of repoint)
    tx.run('UPDATE deck_cards SET source_note_id = ? WHERE deck_id = ? AND source_note_id = ?', [
      child,
      target.deckId,
      parent,
    ]);
  // A note now reviewed on child cards is no longer an Anki card itself (writeAnkiLinks links its children).
  for (const [guid, parent] of parentOf)
    if (ownOrd.has(guid)) tx.run('DELETE FROM anki_cards WHERE guid = ? AND noteid = ?', [guid, parent]);
  return { sources, childIds };
}

/** Child cards seen before (an import again) are retitled and emptied first; their texts are written with the new. */
function* retitleKnownChildren(
  tx: WriteTx,
  multi: readonly { n: ImportPlan['notes'][number] }[],
  known: ReadonlyMap<string, string>,
  now: string,
): WriteSteps<void> {
  const titles: [string, string][] = [];
  for (const { n } of multi)
    for (const r of n.reviews) {
      const prior = known.get(`${n.guid} ${r.ord}`);
      if (prior) titles.push([prior, r.face!.title]);
    }
  yield* updateTitlesSteps(tx, titles, now);
  yield* clearCardContentSteps(
    tx,
    titles.map(([id]) => id),
    { body: true, index: true },
  );
}

/** anki_cards, anki_models and each note's type, fields and imported text: what an export gives back. */
export function writeAnkiLinks(tx: WriteTx, plan: ImportPlan, sources: readonly ReviewSource[]): void {
  drained(writeAnkiLinksSteps(tx, plan, sources));
}

/** writeAnkiLinks, yielding after each statement. */
export function* writeAnkiLinksSteps(
  tx: WriteTx,
  plan: ImportPlan,
  sources: readonly ReviewSource[],
): WriteSteps<void> {
  yield* insertRowsSteps(
    tx,
    'INSERT OR REPLACE INTO anki_cards(guid, ord, noteid)',
    // In key order (guid, ord): see ascendingIds.
    sources
      .map((s) => [s.guid, s.review.ord, s.sourceId])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : Number(a[1]) - Number(b[1]))),
  );
  yield* insertRowsSteps(
    tx,
    'INSERT OR REPLACE INTO anki_models(mid, model)',
    plan.models.map((m) => [m.id, JSON.stringify(m)]),
  );
}
