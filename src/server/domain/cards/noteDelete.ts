import { saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store, WriteTx } from '../../ground/store/store';
import {
  ancestorIds,
  childrenOf,
  descendantIds,
  getNotes,
  inList,
  oneSetOf,
  purgeNotes,
  recordOperation,
  refuseRootCard,
  reindexNote,
  type Db,
} from './noteRows';
import { assertMindMapCards } from './noteMove';
import { detachCopy, hideCard, placeChildren } from './rows/cardRowsDelete';

/**
 * POST /notes/delete: removes cards from a set's tree. Children of a removed
 * card take its place among its parent's children (nearest surviving
 * ancestor; the root card cannot be deleted, so there always is one). A card
 * that a review deck uses as source is hidden instead, so the deck card stays
 * alive with an empty back. Merge-branch removes its merged cards the same way.
 */

export type RemovalOutcome = 'deleted' | 'hidden';

export interface DeletePlanCard {
  noteid: string;
  title: string;
  /** Direct children that survive the batch and are reattached. */
  orphanedChildren: number;
  /** All visible cards below it before the delete. */
  descendants: number;
  outcome: RemovalOutcome;
}

export interface DeletePlan {
  topicid: string;
  cards: DeletePlanCard[];
}

/** 'hidden' when a review deck uses the card as source, else 'deleted'. */
export function removalOutcome(db: Db, noteid: string): RemovalOutcome {
  return db.get('SELECT 1 AS x FROM deck_cards WHERE source_note_id = ? LIMIT 1', [noteid]) ? 'hidden' : 'deleted';
}

export function planDelete(db: Db, noteIds: readonly string[]): DeletePlan {
  const notes = getNotes(db, noteIds);
  assertMindMapCards(db, notes);
  const topicid = oneSetOf(notes);
  for (const n of notes) refuseRootCard(db, n, 'deleted');
  const doomed = new Set(notes.map((n) => n.noteid));
  const cards = notes.map((n) => ({
    noteid: n.noteid,
    title: n.title,
    orphanedChildren: childrenOf(db, n.noteid).filter((c) => !doomed.has(c.noteid)).length,
    descendants: descendantIds(db, n.noteid).length,
    outcome: removalOutcome(db, n.noteid),
  }));
  return { topicid, cards };
}

/** Puts the children of `noteid` into its place among its parent's children, then renumbers that sibling list. */
function reattachInPlace(tx: WriteTx, noteid: string, parentId: string, now: string): void {
  const kids = childrenOf(tx, noteid).map((c) => c.noteid);
  const order = childrenOf(tx, parentId).flatMap((s) => (s.noteid === noteid ? kids : [s.noteid]));
  if (order.length) placeChildren(tx, noteid, parentId, order, kids, now);
}

/**
 * Reference copies of a removed original become independent cards holding
 * the original's current content ("virtual cards become independent").
 */
function detachReferenceCopies(tx: WriteTx, original: string, now: string): void {
  const copies = tx
    .all<{ noteid: string }>('SELECT noteid FROM notes WHERE reference_of = ?', [original])
    .map((r) => r.noteid);
  if (!copies.length) return;
  const src = tx.get<{ noteid: string; title: string }>('SELECT noteid, title FROM notes WHERE noteid = ?', [original]);
  for (const c of copies) {
    detachCopy(tx, c, src, now);
    reindexNote(tx, c);
  }
}

/**
 * Removes cards of one set inside the caller's transaction, deepest first so
 * each card's parent still exists when its children move up. Returns each
 * card's outcome.
 */
export function removeCards(tx: WriteTx, noteIds: readonly string[], now: string): Map<string, RemovalOutcome> {
  const depth = new Map(noteIds.map((id) => [id, ancestorIds(tx, id).length]));
  const ordered = [...noteIds].sort((a, b) => depth.get(b)! - depth.get(a)!);
  const outcomes = new Map<string, RemovalOutcome>();
  for (const id of ordered) {
    const parent = tx.get<{ parent_id: string | null }>('SELECT parent_id FROM notes WHERE noteid = ?', [
      id,
    ])?.parent_id;
    if (parent) reattachInPlace(tx, id, parent, now);
    detachReferenceCopies(tx, id, now);
    const outcome = removalOutcome(tx, id);
    if (outcome === 'hidden') {
      hideCard(tx, id, now);
      reindexNote(tx, id);
    } else {
      purgeNotes(tx, [id]);
    }
    outcomes.set(id, outcome);
  }
  return outcomes;
}

export async function deleteNotes(store: Store, noteIds: readonly string[], actor: Actor) {
  const now = nowIso();
  const plan = await store.write((tx) => {
    const p = planDelete(tx, noteIds);
    removeCards(
      tx,
      p.cards.map((c) => c.noteid),
      now,
    );
    recordOperation(tx, { topicid: p.topicid, kind: 'delete', actor, noteIds: p.cards.map((c) => c.noteid), now });
    return p;
  });
  const ids = plan.cards.map((c) => c.noteid);
  const still = store.all<{ noteid: string }>(
    `SELECT noteid FROM notes WHERE hidden = 0 AND noteid IN ${inList(ids.length)}`,
    ids,
  );
  if (still.length)
    throw saveFailed('The delete was written but some cards are still visible on reading back.', {
      visible: still.map((r) => r.noteid),
    });
  return {
    persisted: true,
    topicid: plan.topicid,
    deleted: plan.cards.map(({ noteid, outcome, orphanedChildren, descendants }) => ({
      noteid,
      outcome,
      orphanedChildren,
      descendants,
      childrenReattachedTo: 'grandparent' as const,
    })),
    trashEnabled: false,
  };
}

export function previewDelete(db: Db, noteIds: readonly string[]) {
  const plan = planDelete(db, noteIds);
  return {
    wouldDelete: plan.cards.length,
    cards: plan.cards.map(({ noteid, title, orphanedChildren, descendants, outcome }) => ({
      noteid,
      title,
      orphanedChildren,
      descendants,
      outcome,
    })),
    totalCascadeDeleted: 0,
    cascadesIntoStudySets: [],
  };
}
