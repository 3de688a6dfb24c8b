import { invalidInput, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { newId, nowIso } from '../library/ids';
import type { Store, WriteTx } from '../../ground/store/store';
import {
  ancestorIds,
  descendantIds,
  getNotes,
  inList,
  nextChildPosition,
  oneSetOf,
  recordOperation,
  type Db,
  type NoteRow,
} from './noteRows';
import { assertMindMapCards } from './noteMove';
import { insertCardCopy } from './rows/cardRowsCopy';

/**
 * POST /notes/copy: copies whole branches (as they are now) under a target
 * card, possibly in another set. `clone` makes independent cards and points
 * links between cards of the copied branch at the new cards; `reference`
 * makes each copy a reference of its original (`reference_of`), whose content
 * the edit routes keep in step. A selected card below another selected card
 * is already copied with it and is skipped.
 */

export type CopyMode = 'reference' | 'clone';

export interface CopyRequest {
  noteId: string;
  targetParentNoteId: string;
  mode: CopyMode;
}

export interface PlannedCopy extends CopyRequest {
  /** The source card and its visible descendants, parents before children. */
  branch: string[];
}

export interface CopyPlan {
  /** The set the copies land in (all targets are in one set). */
  topicid: string;
  copies: PlannedCopy[];
  skipped: Array<{ noteid: string; reason: 'covered_by_selected_ancestor' }>;
}

interface CopyBody {
  noteIds?: string[];
  targetParentNoteId?: string;
  mode?: CopyMode;
  copies?: Array<{ noteId: string; targetParentNoteId: string; mode?: CopyMode }>;
}

/** The two body forms as one list; mixing forms or a missing field → 422. */
export function copyRequests(body: CopyBody): CopyRequest[] {
  if (body.copies && (body.noteIds || body.targetParentNoteId)) {
    throw invalidInput(
      'Send either {noteIds, targetParentNoteId, mode} or {copies:[{noteId, targetParentNoteId, mode?}]}, not both. Nothing was changed.',
    );
  }
  const needMode = () =>
    invalidInput(
      "mode is required: 'reference' (content kept in step with the original) or 'clone' (independent copy). Nothing was changed.",
      { missing: ['mode'] },
    );
  if (body.copies) {
    return body.copies.map((c) => {
      const mode = c.mode ?? body.mode;
      if (!mode) throw needMode();
      return { noteId: c.noteId, targetParentNoteId: c.targetParentNoteId, mode };
    });
  }
  if (!body.noteIds || !body.targetParentNoteId) {
    throw invalidInput(
      'Send {noteIds, targetParentNoteId, mode} or {copies:[{noteId, targetParentNoteId, mode?}]}. Nothing was changed.',
      {
        missing: [!body.noteIds && 'noteIds', !body.targetParentNoteId && 'targetParentNoteId'].filter(Boolean),
      },
    );
  }
  if (!body.mode) throw needMode();
  const { targetParentNoteId, mode } = body;
  return [...new Set(body.noteIds)].map((noteId) => ({ noteId, targetParentNoteId, mode }));
}

export function planCopies(db: Db, requests: readonly CopyRequest[]): CopyPlan {
  const sources = getNotes(
    db,
    requests.map((r) => r.noteId),
  );
  const targets = getNotes(
    db,
    requests.map((r) => r.targetParentNoteId),
  );
  assertMindMapCards(db, [...sources, ...targets]);
  const topicid = oneSetOf(targets);
  const selected = new Set(sources.map((s) => s.noteid));
  const covered = new Set(
    sources.filter((s) => ancestorIds(db, s.noteid).some((a) => selected.has(a))).map((s) => s.noteid),
  );
  const skipped = [...covered].map((noteid) => ({ noteid, reason: 'covered_by_selected_ancestor' as const }));
  const copies = requests
    .filter((r) => !covered.has(r.noteId))
    .map((r) => ({ ...r, branch: [r.noteId, ...descendantIds(db, r.noteId)] }));
  return { topicid, copies, skipped };
}

export function previewCopy(plan: CopyPlan) {
  return {
    wouldCopy: plan.copies.map((c) => ({
      noteid: c.noteId,
      descendants: c.branch.length - 1,
      mode: c.mode,
      targetParentNoteId: c.targetParentNoteId,
    })),
    skipped: plan.skipped,
  };
}

function rowsOf(db: Db, ids: readonly string[]): Map<string, NoteRow> {
  const out = new Map<string, NoteRow>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of db.all<NoteRow>(`SELECT * FROM notes WHERE noteid IN ${inList(chunk.length)}`, chunk))
      out.set(r.noteid, r);
  }
  return out;
}

const LINK_RE = /studybridge:\/\/note\/([0-9A-Fa-f-]{36})/g;

/** Writes one branch copy; returns the new root's id and every new id. */
function copyBranch(tx: WriteTx, c: PlannedCopy, topicid: string, now: string): { newRoot: string; newIds: string[] } {
  const rows = rowsOf(tx, c.branch);
  const idMap = new Map(c.branch.map((id) => [id, newId()]));
  const clone = c.mode === 'clone';
  for (const oldId of c.branch) {
    const r = rows.get(oldId)!;
    const nid = idMap.get(oldId)!;
    const isRoot = oldId === c.noteId;
    const parent = isRoot ? c.targetParentNoteId : idMap.get(r.parent_id!)!;
    // A clone of a reference copy takes the group's content from its original.
    const contentId =
      clone && r.reference_of && tx.get('SELECT 1 AS x FROM notes WHERE noteid = ?', [r.reference_of])
        ? r.reference_of
        : oldId;
    const title =
      contentId === oldId
        ? r.title
        : tx.get<{ title: string }>('SELECT title FROM notes WHERE noteid = ?', [contentId])!.title;
    insertCardCopy(
      tx,
      {
        noteid: nid,
        topicid,
        parentId: parent,
        position: isRoot ? nextChildPosition(tx, parent) : r.position,
        title,
        referenceOf: clone ? null : (r.reference_of ?? oldId),
        now,
      },
      r,
      {
        contentId,
        linksOf: oldId,
        // Inside a clone, links to cards of the branch point at their copies; links outside stay.
        text: (text) =>
          clone
            ? text.replace(LINK_RE, (m, id: string) =>
                idMap.has(id.toUpperCase()) ? `studybridge://note/${idMap.get(id.toUpperCase())}` : m,
              )
            : text,
        target: (id) => (clone ? (idMap.get(id) ?? id) : id),
      },
    );
  }
  return { newRoot: idMap.get(c.noteId)!, newIds: [...idMap.values()] };
}

export async function copyNotes(store: Store, requests: readonly CopyRequest[], actor: Actor) {
  const now = nowIso();
  const { plan, results } = await store.write((tx) => {
    const p = planCopies(tx, requests);
    const res = p.copies.map((c) => ({ c, ...copyBranch(tx, c, p.topicid, now) }));
    recordOperation(tx, { topicid: p.topicid, kind: 'copy', actor, noteIds: res.flatMap((r) => r.newIds), now });
    return { plan: p, results: res };
  });
  const allNew = results.flatMap((r) => r.newIds);
  const found = rowsOf(store, allNew);
  const persisted = allNew.every((id) => found.get(id)?.hidden === 0 && found.get(id)?.topicid === plan.topicid);
  if (!persisted)
    throw saveFailed('The copy was written but reading it back disagrees; check GET /study-sets/{id}/tree.');
  return {
    persisted,
    topicid: plan.topicid,
    copies: results.map((r) => ({
      sourceNoteId: r.c.noteId,
      newNoteId: r.newRoot,
      cardCount: r.newIds.length,
      mode: r.c.mode,
      targetParentNoteId: r.c.targetParentNoteId,
    })),
    skipped: plan.skipped,
  };
}
