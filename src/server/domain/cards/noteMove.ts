import { invalidInput, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store, WriteTx } from '../../ground/store/store';
import {
  getNotes,
  inList,
  nextChildPosition,
  oneSetOf,
  recordOperation,
  refuseRootCard,
  type Db,
  type NoteRow,
} from './noteRows';
import { moveCard } from './rows/cardRowsEdit';

/**
 * POST /notes/move: re-parents cards within one study set. Each moved card
 * becomes the last child of its target; no other sibling changes order.
 * The whole batch is planned on an in-memory parent map first, so a dry-run
 * and the write see the same checks (a later move in the batch sees the
 * earlier ones).
 */

export interface MoveRequest {
  noteId: string;
  targetParentNoteId: string;
}

export interface PlannedMove {
  noteid: string;
  from: string | null;
  to: string;
}

export interface MovePlan {
  topicid: string;
  moves: PlannedMove[];
}

/** 422 NOT_A_STUDY_SET_CARD unless every card lives in a visible study set (review decks hold no mind-map cards). */
export function assertMindMapCards(db: Db, notes: readonly NoteRow[]): void {
  const sets = [...new Set(notes.map((n) => n.topicid))];
  const bad = db.all<{ topicid: string }>(
    `SELECT topicid FROM topics WHERE topicid IN ${inList(sets.length)} AND kind = 'studyset' AND hidden = 0`,
    sets,
  );
  const ok = new Set(bad.map((r) => r.topicid));
  const foreign = notes.filter((n) => !ok.has(n.topicid)).map((n) => n.noteid);
  if (foreign.length) {
    throw invalidInput(
      `Card${foreign.length > 1 ? 's' : ''} ${foreign.join(', ')} ${foreign.length > 1 ? 'are' : 'is'} not in a study set's mind map. Nothing was changed.`,
      { noteIds: foreign },
      'NOT_A_STUDY_SET_CARD',
    );
  }
}

/** Parent of every visible card of a set. */
export function parentMap(db: Db, topicid: string): Map<string, string | null> {
  const rows = db.all<{ noteid: string; parent_id: string | null }>(
    'SELECT noteid, parent_id FROM notes WHERE topicid = ? AND hidden = 0',
    [topicid],
  );
  return new Map(rows.map((r) => [r.noteid, r.parent_id]));
}

/** True when `candidate` is `noteid` itself or lies below it. */
function isSelfOrBelow(parents: Map<string, string | null>, noteid: string, candidate: string): boolean {
  const seen = new Set<string>();
  for (let cur: string | null | undefined = candidate; cur && !seen.has(cur); cur = parents.get(cur)) {
    if (cur === noteid) return true;
    seen.add(cur);
  }
  return false;
}

/** The two body forms, `{noteIds, targetParentNoteId}` or `{moves:[…]}`, as one list; mixing or missing → 422. */
export function moveRequests(body: {
  noteIds?: string[];
  targetParentNoteId?: string;
  moves?: MoveRequest[];
}): MoveRequest[] {
  if (body.moves && (body.noteIds || body.targetParentNoteId)) {
    throw invalidInput(
      'Send either {noteIds, targetParentNoteId} or {moves:[{noteId, targetParentNoteId}]}, not both. Nothing was changed.',
    );
  }
  if (body.moves) return body.moves;
  if (!body.noteIds || !body.targetParentNoteId) {
    throw invalidInput(
      'Send {noteIds, targetParentNoteId} or {moves:[{noteId, targetParentNoteId}]}. Nothing was changed.',
      {
        missing: [!body.noteIds && 'noteIds', !body.targetParentNoteId && 'targetParentNoteId'].filter(Boolean),
      },
    );
  }
  const target = body.targetParentNoteId;
  return [...new Set(body.noteIds)].map((noteId) => ({ noteId, targetParentNoteId: target }));
}

/** Checks the batch and lists what it would do; throws 404/422 with nothing changed. */
export function planMoves(db: Db, requests: readonly MoveRequest[]): MovePlan {
  const notes = getNotes(db, [...requests.map((r) => r.noteId), ...requests.map((r) => r.targetParentNoteId)]);
  assertMindMapCards(db, notes);
  const topicid = oneSetOf(notes);
  const byId = new Map(notes.map((n) => [n.noteid, n]));
  for (const r of requests) refuseRootCard(db, byId.get(r.noteId)!, 'moved');
  const parents = parentMap(db, topicid);
  const moves = requests.map((r) => {
    if (isSelfOrBelow(parents, r.noteId, r.targetParentNoteId)) {
      throw invalidInput(
        `Moving ${r.noteId} under ${r.targetParentNoteId} would put the card inside its own branch. Nothing was changed.`,
        { noteid: r.noteId, targetParentNoteId: r.targetParentNoteId },
        'WOULD_CREATE_CYCLE',
      );
    }
    const from = parents.get(r.noteId) ?? null;
    parents.set(r.noteId, r.targetParentNoteId);
    return { noteid: r.noteId, from, to: r.targetParentNoteId };
  });
  return { topicid, moves };
}

/** Applies a plan inside the caller's transaction. A card already under its target stays where it is. */
export function applyMoves(tx: WriteTx, plan: MovePlan, now: string): void {
  for (const m of plan.moves) {
    if (m.from === m.to) continue;
    moveCard(tx, m.noteid, m.to, nextChildPosition(tx, m.to), now);
  }
}

export async function moveNotes(store: Store, requests: readonly MoveRequest[], actor: Actor) {
  const now = nowIso();
  const plan = await store.write((tx) => {
    const p = planMoves(tx, requests);
    applyMoves(tx, p, now);
    recordOperation(tx, { topicid: p.topicid, kind: 'move', actor, noteIds: p.moves.map((m) => m.noteid), now });
    return p;
  });
  // The last move of a card decides where it ends.
  const finalParent = new Map(plan.moves.map((m) => [m.noteid, m.to]));
  const rows = store.all<{ noteid: string; parent_id: string | null }>(
    `SELECT noteid, parent_id FROM notes WHERE hidden = 0 AND noteid IN ${inList(finalParent.size)}`,
    [...finalParent.keys()],
  );
  const persisted = rows.length === finalParent.size && rows.every((r) => r.parent_id === finalParent.get(r.noteid));
  if (!persisted)
    throw saveFailed('The move was written but reading it back disagrees; check GET /study-sets/{id}/tree.', {
      moved: plan.moves,
    });
  return { persisted, topicid: plan.topicid, moved: plan.moves };
}
