import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { SqlParam } from '../../ground/store/journal';
import type { Store } from '../../ground/store/store';
import { recordPerSet, editNotConfirmed } from './editBatch';
import { type Db, getNotes, inList } from './noteRows';
import { setCardFlag } from './rows/cardRowsEdit';

/**
 * Collapsing and expanding cards in the mind map. Only cards with (visible)
 * children fold; leaves are skipped with reason no_children.
 */

export interface FoldPlan {
  changed: { noteid: string; topicid: string }[];
  unchanged: string[];
  skipped: { noteid: string; reason: 'no_children' }[];
}

export function planFold(db: Db, noteIds: readonly string[], folded: boolean): FoldPlan {
  const notes = getNotes(db, noteIds);
  const ids = notes.map((n) => n.noteid);
  const parents = new Set(
    db
      .all<{ parent_id: string }>(
        `SELECT DISTINCT parent_id FROM notes WHERE hidden = 0 AND parent_id IN ${inList(ids.length)}`,
        ids as SqlParam[],
      )
      .map((r) => r.parent_id),
  );
  const plan: FoldPlan = { changed: [], unchanged: [], skipped: [] };
  for (const n of notes) {
    if (!parents.has(n.noteid)) plan.skipped.push({ noteid: n.noteid, reason: 'no_children' });
    else if ((n.folded === 1) === folded) plan.unchanged.push(n.noteid);
    else plan.changed.push({ noteid: n.noteid, topicid: n.topicid });
  }
  return plan;
}

export function previewFold(db: Db, noteIds: readonly string[], folded: boolean) {
  const plan = planFold(db, noteIds, folded);
  return { folded, wouldChange: plan.changed.map((c) => c.noteid), unchanged: plan.unchanged, skipped: plan.skipped };
}

/** Folds or unfolds in one transaction, then reads the flags back: persisted:true only when every card with children shows `folded`. */
export async function editFold(store: Store, noteIds: readonly string[], folded: boolean, actor: Actor) {
  const now = nowIso();
  const plan = await store.write((tx) => {
    const plan = planFold(tx, noteIds, folded);
    for (const c of plan.changed) setCardFlag(tx, c.noteid, 'folded', folded, now);
    recordPerSet(tx, plan.changed, 'fold', actor, now);
    return plan;
  });
  const asked = [...plan.changed.map((c) => c.noteid), ...plan.unchanged];
  const stored = store.all<{ noteid: string; folded: number }>(
    `SELECT noteid, folded FROM notes WHERE noteid IN ${inList(asked.length)}`,
    asked,
  );
  const disagree = asked.filter((id) => !stored.some((r) => r.noteid === id && (r.folded === 1) === folded));
  if (disagree.length) throw editNotConfirmed('fold', { noteIds: disagree });
  return {
    persisted: true,
    folded,
    changed: plan.changed.map((c) => c.noteid),
    unchanged: plan.unchanged,
    skipped: plan.skipped,
  };
}
