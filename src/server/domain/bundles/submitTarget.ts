import { invalidInput } from '../../errors';
import { getNote } from '../cards/noteRows';
import type { BundleRow } from './bundleRecords';
import type { BundleService } from './bundleService';

/** Where a submit puts its tree: the old tree it replaces, and the card the new one hangs under. */
export interface SubmitTarget {
  rootNoteId: string;
  /** The bundle's root card as it stands before the submit, if it exists (hidden or not). */
  existing: { parent_id: string | null; position: number; hidden: number } | undefined;
  /** The root and every descendant of the previous import: all replaced. */
  oldTree: string[];
  parentId: string;
}

/** The old tree and the new parent: the old root's parent, else the set's root, unless targetParentNoteId names one. */
export function submitTarget(svc: BundleService, row: BundleRow, targetParentNoteId: string | undefined): SubmitTarget {
  const rootNoteId = row.root_note_id!;
  const existing = svc.store.get<{ parent_id: string | null; position: number; hidden: number }>(
    'SELECT parent_id, position, hidden FROM notes WHERE noteid = ?',
    [rootNoteId],
  );
  const setRoot = svc.store.get<{ root_note_id: string }>('SELECT root_note_id FROM topics WHERE topicid = ?', [
    row.topicid,
  ])!.root_note_id;
  const oldTree = existing ? [rootNoteId, ...allDescendants(svc, rootNoteId)] : [];
  let parentId = existing && !existing.hidden && existing.parent_id ? existing.parent_id : setRoot;
  if (targetParentNoteId) {
    const target = getNote(svc.store, targetParentNoteId);
    if (target.topicid !== row.topicid) {
      throw invalidInput(
        `targetParentNoteId ${target.noteid} belongs to another study set than this bundle's (${row.topicid}). Nothing was imported.`,
        { targetParentNoteId: target.noteid },
        'TARGET_IN_OTHER_SET',
      );
    }
    if (oldTree.includes(target.noteid)) {
      throw invalidInput(
        'targetParentNoteId lies inside the tree this submit replaces. Nothing was imported.',
        { targetParentNoteId: target.noteid },
        'TARGET_INSIDE_IMPORT',
      );
    }
    parentId = target.noteid;
  }
  return { rootNoteId, existing, oldTree, parentId };
}

/** Every descendant, hidden ones too: a replace removes the whole old tree. */
function allDescendants(svc: BundleService, rootId: string): string[] {
  return svc.store
    .all<{ noteid: string }>(
      `WITH RECURSIVE sub(noteid) AS (SELECT noteid FROM notes WHERE parent_id = ? UNION ALL SELECT n.noteid FROM notes n JOIN sub ON n.parent_id = sub.noteid) SELECT noteid FROM sub`,
      [rootId],
    )
    .map((r) => r.noteid);
}
