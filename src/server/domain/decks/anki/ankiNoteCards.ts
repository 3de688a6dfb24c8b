import type { Actor } from '../../../actor';
import type { WriteTx } from '../../../ground/store/store';
import { inList } from '../../cards/noteRows';
import { newSchedule } from '../deckScheduling';
import { cardOrds } from './ankiCardgen';
import type { AnkiCard, AnkiCollection } from './ankiCollection';
import { placeReviewCards, writeAnkiLinks, type ReviewSource } from './ankiImportCards';
import { planImport, type ImportPlan, type PlannedNote } from './ankiImportPlan';
import { writeReviews } from './ankiImportReviews';
import type { AnkiModel } from './ankiNotetypes';
import { hashtagToTag } from './ankiText';

/**
 * The cards Anki makes of a note added or changed through AnkiConnect (the
 * AnkiConnect actions call this; the SQL of a note's cards stays here): one
 * per template whose front is not empty by Anki's rule (ankiCardgen.ts), one
 * per cloze number of a cloze type; none at all, the first (Anki's
 * ensure_not_empty). They are laid out as an .apkg import lays out a package's
 * cards (the import's own planImport and placeReviewCards): one card
 * reviewed on the note's card, several as child cards under it, each with
 * its own review card and its Anki ordinal in anki_cards.
 */

/** A note as cardgen reads it: its stored type, fields' HTML and tags. */
export interface CardNote {
  noteid: string;
  model: AnkiModel;
  fields: readonly string[];
  hashtags: readonly string[];
}

/** The notes as a package's collection would hold them, with the cards Anki makes (plus `keep`, cards a note has). */
function collectionOf(notes: readonly CardNote[], keep: ReadonlyMap<string, readonly number[]>): AnkiCollection {
  const cards: AnkiCard[] = [];
  const schedule = { type: 0, queue: 0, due: 0, ivl: 0, factor: 0, reps: 0, lapses: 0, data: '' };
  notes.forEach((n, nid) => {
    const tags = n.hashtags.map(hashtagToTag);
    const had = keep.get(n.noteid) ?? [];
    const made = cardOrds(n.model, n.fields, tags);
    // A note with no card and none made gets the first (Anki's ensure_not_empty).
    const ords = new Set([...had, ...(made.length || had.length ? made : [0])]);
    for (const ord of [...ords].sort((a, b) => a - b))
      cards.push({ ...schedule, id: cards.length + 1, nid, did: '1', ord, flags: 0 });
  });
  return {
    crt: 0,
    models: new Map(notes.map((n) => [n.model.id, n.model])),
    decks: new Map([['1', 'AnkiConnect']]),
    notes: notes.map((n, nid) => ({
      id: nid,
      guid: guidOf(n.noteid),
      mid: n.model.id,
      tags: n.hashtags.map(hashtagToTag),
      fields: [...n.fields],
    })),
    cards,
    revlog: new Map(),
    deckConfigs: new Map(),
  };
}

/** The Anki guid a note added through AnkiConnect keeps (anki_notes). */
export const guidOf = (noteid: string) => `sb-${noteid}`;

/** Each note's cards as the import plans them, new cards scheduled as new. */
function planCards(notes: readonly CardNote[], keep: ReadonlyMap<string, readonly number[]>, now: string) {
  const plan = planImport(collectionOf(notes, keep), new Date(now));
  const fresh = newSchedule(new Date(now));
  for (const n of plan.notes) for (const r of n.reviews) r.schedule = { ...fresh };
  return plan;
}

/**
 * Writes the cards of notes just inserted (their own cards written, their
 * anki_notes rows too): child cards, anki_cards and a new review card each
 * in `deckId`. Answers the review cards' ids and the child cards' ids.
 */
export function writeNoteCards(
  tx: WriteTx,
  notes: readonly CardNote[],
  target: { topicid: string; deckId: string },
  actor: Actor,
  now: string,
): { cardIds: string[]; childIds: string[] } {
  const plan = { ...planCards(notes, new Map(), now), models: [] };
  const { sources, childIds } = placeReviewCards(
    tx,
    plan,
    notes.map((n) => n.noteid),
    target,
    new Set(),
    now,
  );
  writeAnkiLinks(tx, plan, sources);
  return { cardIds: writeReviews(tx, target.deckId, sources, { actor, now }), childIds };
}

/**
 * After a note's fields change: the cards it has keep their scheduling and
 * take their new faces; cards the new fields make are added (Anki adds, and
 * never removes, cards on an edit). A note reviewed on its own card that now
 * has several moves that review card to its first child, review log and all.
 */
export function rewriteNoteCards(
  tx: WriteTx,
  note: CardNote,
  target: { topicid: string; deckId: string },
  actor: Actor,
  now: string,
): { cardIds: string[]; childIds: string[] } {
  const guid = guidOf(note.noteid);
  const had = tx.all<{ ord: number; noteid: string }>('SELECT ord, noteid FROM anki_cards WHERE guid = ?', [guid]);
  const plan: ImportPlan = { ...planCards([note], new Map([[note.noteid, had.map((h) => h.ord)]]), now), models: [] };
  const planned: PlannedNote = plan.notes[0];
  const updated = new Set<string>();
  // Its own card becomes the parent: its review card moves to the child of the same ordinal (placeReviewCards).
  if (planned.reviews.length > 1 && had.some((h) => h.noteid === note.noteid)) updated.add(note.noteid);
  const { sources, childIds } = placeReviewCards(tx, plan, [note.noteid], target, updated, now);
  writeAnkiLinks(tx, plan, sources);
  const ids = [note.noteid, ...sources.map((s) => s.sourceId)];
  const reviewed = new Set(
    tx
      .all<{ source_note_id: string }>(
        `SELECT source_note_id FROM deck_cards WHERE source_note_id IN ${inList(ids.length)}`,
        ids,
      )
      .map((r) => r.source_note_id),
  );
  // A cloze card asks its text; a child card (a face) asks its title, also one that was the note's own card before.
  for (const s of sources.filter((x) => reviewed.has(x.sourceId)))
    if (s.review.question !== null || s.sourceId !== note.noteid)
      tx.run(
        'UPDATE deck_cards SET question = ?, question_index = ?, modified_at = ? WHERE source_note_id = ? AND question IS NOT ?',
        [s.review.question, s.review.question === null ? 0 : null, now, s.sourceId, s.review.question],
      );
  const added: ReviewSource[] = sources.filter((s) => !reviewed.has(s.sourceId));
  return { cardIds: writeReviews(tx, target.deckId, added, { actor, now }), childIds };
}

/** A Basic or Cloze note's cloze question changed: the review cards that ask it ask the new one. */
export function setClozeQuestion(tx: WriteTx, noteid: string, question: string, now: string): void {
  tx.run('UPDATE deck_cards SET question = ?, modified_at = ? WHERE source_note_id = ? AND question IS NOT NULL', [
    question,
    now,
    noteid,
  ]);
}
