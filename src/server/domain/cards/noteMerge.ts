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
  const merged = plan.willMerge.map((m) => m.noteid);
  const titles = plan.willMerge.map((m) => m.title.trim()).filter(Boolean);
  const takeTitles = plan.note.title.trim() === '' && titles.length > 0;
  if (takeTitles) tx.run('UPDATE notes SET title = ? WHERE noteid = ?', [titles.join('; '), into]);

  let idx = Math.max(
    1,
    (tx.get<{ m: number | null }>('SELECT max(idx) AS m FROM note_texts WHERE noteid = ?', [into])?.m ?? 0) + 1,
  );
  let partIdx =
    (tx.get<{ m: number | null }>('SELECT max(idx) AS m FROM note_parts WHERE noteid = ?', [into])?.m ?? -1) + 1;
  const tags = new Set(
    tx
      .all<{ path: string }>('SELECT path FROM note_hashtags WHERE noteid = ?', [into])
      .map((t) => t.path.toLowerCase()),
  );
  for (const m of plan.willMerge) {
    if (!takeTitles && m.title.trim())
      tx.run("INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, ?, ?, 0, 'text')", [
        into,
        idx++,
        m.title,
      ]);
    for (const t of tx.all<{ text: string; excerpt: number; kind: string }>(
      'SELECT text, excerpt, kind FROM note_texts WHERE noteid = ? ORDER BY idx',
      [m.noteid],
    )) {
      tx.run('INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, ?, ?, ?, ?)', [
        into,
        idx++,
        t.text,
        t.excerpt,
        t.kind,
      ]);
    }
    // Hashtags compare case-insensitively; the card's spelling (or the first merged one) wins.
    for (const t of tx.all<{ path: string }>('SELECT path FROM note_hashtags WHERE noteid = ? ORDER BY path', [
      m.noteid,
    ])) {
      if (tags.has(t.path.toLowerCase())) continue;
      tags.add(t.path.toLowerCase());
      tx.run('INSERT INTO note_hashtags(noteid, path) VALUES (?, ?)', [into, t.path]);
    }
    for (const p of tx.all<{ content_id: string }>('SELECT content_id FROM note_parts WHERE noteid = ? ORDER BY idx', [
      m.noteid,
    ])) {
      tx.run('UPDATE note_parts SET noteid = ?, idx = ? WHERE content_id = ?', [into, partIdx++, p.content_id]);
    }
  }
  // Links of merged cards now belong to the card (two-way rows); links among the merged cards and the card itself vanish.
  const inside = new Set([into, ...merged]);
  const links = tx.all<{ noteid: string; target_id: string }>(
    `SELECT noteid, target_id FROM note_links WHERE noteid IN ${inList(merged.length)}`,
    merged,
  );
  for (const l of links) {
    if (inside.has(l.target_id)) continue;
    tx.run('INSERT OR IGNORE INTO note_links(noteid, target_id, created_at) VALUES (?, ?, ?)', [
      into,
      l.target_id,
      now,
    ]);
    tx.run('INSERT OR IGNORE INTO note_links(noteid, target_id, created_at) VALUES (?, ?, ?)', [
      l.target_id,
      into,
      now,
    ]);
  }
  tx.run('UPDATE notes SET modified_at = ? WHERE noteid = ?', [now, into]);
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
