import { saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store, WriteTx } from '../../ground/store/store';
import {
  childrenOf,
  descendantIds,
  getNote,
  inList,
  recordOperation,
  reindexNote,
  type Db,
  type NoteRow,
} from './noteRows';
import { assertMindMapCards } from './noteMove';
import { removeCards } from './noteDelete';
import { setTitle, touchNote } from './rows/cardRowsEdit';
import { appendMergedContent } from './rows/cardRowsMerge';

/**
 * POST /notes/{id}/merge-branch: folds the content of a card's children (or,
 * recursive, of its whole subtree) into the card and removes them. Each
 * merged card contributes, in tree order, its title and then its texts (body
 * first) as comments of the card; its hashtags, links and parts join the
 * card. Cards that are not merged (summary cards, sub-map roots with their
 * branches, and without `recursive` the grandchildren) stay and are
 * reattached in the merged card's place.
 *
 * "Titles joined with '; '": a card whose own title is empty takes the merged
 * cards' titles joined with "; " as its title (they are then not repeated as
 * comments); a card with a title keeps it and receives each title as a comment.
 */

export type MergeSkipReason = 'summary_card' | 'sub_map_root';

export interface MergePlan {
  note: NoteRow;
  willMerge: Array<{ noteid: string; title: string }>;
  /** Visible cards below the card that remain cards after the merge. */
  notMergedCount: number;
  skipped: Array<{ noteid: string; reason: MergeSkipReason }>;
}

function skipReason(n: NoteRow): MergeSkipReason | undefined {
  if (n.kind === 'summary') return 'summary_card';
  if (n.sub_map) return 'sub_map_root';
  return undefined;
}

export function planMerge(db: Db, noteid: string, recursive: boolean): MergePlan {
  const note = getNote(db, noteid);
  assertMindMapCards(db, [note]);
  const willMerge: MergePlan['willMerge'] = [];
  const skipped: MergePlan['skipped'] = [];
  // Pre-order, so the comments follow the branch's reading order.
  const visit = (parentId: string) => {
    for (const c of childrenOf(db, parentId)) {
      const reason = skipReason(c);
      if (reason) {
        skipped.push({ noteid: c.noteid, reason });
        continue;
      }
      willMerge.push({ noteid: c.noteid, title: c.title });
      if (recursive) visit(c.noteid);
    }
  };
  visit(noteid);
  return { note, willMerge, notMergedCount: descendantIds(db, noteid).length - willMerge.length, skipped };
}

function appendContent(tx: WriteTx, plan: MergePlan, now: string): void {
  const into = plan.note.noteid;
  const titles = plan.willMerge.map((m) => m.title.trim()).filter(Boolean);
  const takeTitles = plan.note.title.trim() === '' && titles.length > 0;
  if (takeTitles) setTitle(tx, into, titles.join('; '));
  appendMergedContent(tx, into, plan.willMerge, !takeTitles, now);
  touchNote(tx, into, now);
  reindexNote(tx, into);
}

export function previewMerge(db: Db, noteid: string, recursive: boolean) {
  const { willMerge, notMergedCount, skipped } = planMerge(db, noteid, recursive);
  return { willMerge, notMergedCount, skipped };
}

export async function mergeBranch(store: Store, noteid: string, recursive: boolean, actor: Actor) {
  const now = nowIso();
  const plan = await store.write((tx) => {
    const p = planMerge(tx, noteid, recursive);
    if (!p.willMerge.length) return p; // a leaf (or only skipped children): nothing to write
    appendContent(tx, p, now);
    removeCards(
      tx,
      p.willMerge.map((m) => m.noteid),
      now,
    );
    recordOperation(tx, {
      topicid: p.note.topicid,
      kind: 'merge',
      actor,
      noteIds: [noteid, ...p.willMerge.map((m) => m.noteid)],
      now,
    });
    return p;
  });
  const merged = plan.willMerge.map((m) => m.noteid);
  const still = store.all<{ noteid: string }>(
    `SELECT noteid FROM notes WHERE hidden = 0 AND noteid IN ${inList(merged.length)}`,
    merged,
  );
  if (still.length)
    throw saveFailed('The merge was written but merged cards are still visible on reading back.', {
      visible: still.map((r) => r.noteid),
    });
  return { persisted: true, noteid, merged, notMergedCount: plan.notMergedCount, skipped: plan.skipped };
}
