import { BridgeError, conflict } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import type { Store } from '../../ground/store/store';
import type { UiHost } from '../ui/uiHost';
import { currentCardsSince } from './cardEdits';
import { type Db, inList, recordOperation } from './noteRows';
import { readCardsJson, type SnapshotContent, toJson } from './snapshotContent';
import type { SnapshotFiles } from './snapshotFiles';
import type { SnapshotView } from './snapshotView';
import { idsTakenElsewhere, writeBackContent } from './snapshotWriteBack';
import { getSnapshot, openStoredSnapshot, snapshotLabel, type SnapshotRow, writeSnapshotTx } from './snapshots';

/**
 * Restoring a snapshot: the set's cards become exactly the snapshot's cards.
 * The preview (dry-run) always answers, so a person can see what a restore
 * would do even while the set is open; the confirmed restore enforces the
 * gates: not open in the UI, no edits by the person since the snapshot
 * (unless force), and a protection snapshot of the current state first.
 * Both read the snapshot's content first: a missing or damaged content file
 * answers 422 SNAPSHOT_UNREADABLE before anything is looked at or changed.
 * Of its cards, only those the answer needs are parsed (snapshotView.ts).
 */

export const NOT_COVERED = ['document tables of contents'] as const;

export interface ChangedNode {
  noteid: string;
  title: string;
  operations: string[];
}

/** Cards the person (actor 'user') changed after the snapshot, with what they did to each, in log order. */
function userEditsSince(db: Db, snap: SnapshotRow, content: SnapshotView): ChangedNode[] {
  const ops = db.all<{ kind: string; note_ids: string }>(
    `SELECT kind, note_ids FROM operations WHERE topicid = ? AND op_seq > ? AND actor = 'user' ORDER BY op_seq`,
    [snap.topicid, snap.op_seq],
  );
  const kinds = new Map<string, string[]>();
  for (const op of ops) {
    for (const id of JSON.parse(op.note_ids) as string[]) {
      const list = kinds.get(id) ?? [];
      if (!list.includes(op.kind)) list.push(op.kind);
      kinds.set(id, list);
    }
  }
  const ids = [...kinds.keys()];
  const titles = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of db.all<{ noteid: string; title: string }>(
      `SELECT noteid, title FROM notes WHERE noteid IN ${inList(chunk.length)}`,
      chunk,
    ))
      titles.set(r.noteid, r.title);
  }
  // A card the person deleted since is named by its title in the snapshot.
  const gone = new Set(ids.filter((id) => !titles.has(id)));
  if (gone.size) {
    for (const n of content.cards(gone).notes) if (gone.has(n.noteid)) titles.set(n.noteid, n.title);
  }
  return ids.map((noteid) => ({ noteid, title: titles.get(noteid) ?? '', operations: kinds.get(noteid)! }));
}

const visibleNow = (db: Db, topicid: string) =>
  db.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE topicid = ? AND hidden = 0', [topicid])?.n ?? 0;

async function setInUse(ui: UiHost, topicid: string): Promise<boolean> {
  return (await ui.context()).studySet?.topicid === topicid;
}

/** The dry-run: what restoring would do, changing nothing. Unknown snapshot → 404 SNAPSHOT_NOT_FOUND. */
export async function previewRestore(store: Store, files: SnapshotFiles, ui: UiHost, snapshotId: string) {
  const snap = getSnapshot(store, snapshotId);
  assertStudySet(store, snap.topicid);
  const content = openStoredSnapshot(store, files, snap); // a preview of an unreadable snapshot says so
  const changedNodes = userEditsSince(store, snap, content);
  return {
    snapshotId,
    topicid: snap.topicid,
    wouldRestoreToVersion: snap.version,
    snapshotCreatedAt: snap.created_at,
    snapshotDescription: snap.description,
    snapshotLabel: snapshotLabel(snap.kind, snap.description),
    noteCountInSnapshot: snap.note_count,
    currentNoteCount: visibleNow(store, snap.topicid),
    changedNodes,
    userEditsPresent: changedNodes.length > 0,
    studySetInUse: await setInUse(ui, snap.topicid),
    notCovered: [...NOT_COVERED],
  };
}

/**
 * Re-reads the cards the restore rewrote and compares them with the
 * snapshot's rows (`c` holds at least theirs), table by table (on the
 * columns the snapshot has); the others were equal already. The set's card
 * count must match too.
 */
function readBackAgrees(
  db: Db,
  topicid: string,
  snap: SnapshotView,
  c: SnapshotContent,
  rewritten: readonly string[],
): boolean {
  const ids = new Set(rewritten);
  const now = readCardsJson(db, topicid, rewritten);
  const count = db.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE topicid = ?', [topicid])?.n;
  if (count !== snap.noteIds.length) return false;
  return (['notes', 'texts', 'hashtags', 'parts'] as const).every((t) => {
    const keys = snap.columns(t);
    const project = (rows: readonly object[]) => rows.map((r) => keys.map((k) => (r as Record<string, unknown>)[k]));
    const wanted = (c[t] as readonly Record<string, unknown>[]).filter((r) => ids.has(String(r.noteid)));
    return toJson(project(now[t])) === toJson(project(wanted));
  });
}

export async function restoreSnapshot(
  store: Store,
  files: SnapshotFiles,
  ui: UiHost,
  snapshotId: string,
  opts: { force: boolean; actor: Actor },
) {
  const snap = getSnapshot(store, snapshotId);
  const topicid = snap.topicid;
  assertStudySet(store, topicid);
  if (await setInUse(ui, topicid)) {
    throw conflict(
      'STUDY_SET_IN_USE',
      `Study set ${topicid} is open in the UI; a restore would replace the cards under the person's eyes. Switch away from it and retry. Nothing was changed.`,
      {
        topicid,
        snapshotId,
      },
    );
  }
  const snapshot = openStoredSnapshot(store, files, snap);
  const label = snapshotLabel(snap.kind, snap.description);

  return store.write((tx) => {
    const { changedNodes, since, content } = checkRestorable(tx, snap, snapshot, opts.force);
    const now = nowIso();
    const protection = writeSnapshotTx(
      tx,
      files,
      topicid,
      'protection',
      `Before restoring version ${snap.version} (${label})`,
      now,
      since.data,
    );
    const { rewritten } = writeBackContent(
      tx,
      topicid,
      content,
      since.current,
      since.candidates,
      new Set(snapshot.noteIds),
    );
    recordOperation(tx, { topicid, kind: 'restore', actor: opts.actor, noteIds: rewritten, now });
    if (!readBackAgrees(tx, topicid, snapshot, content, rewritten)) {
      throw new BridgeError(
        'SAVE_FAILED',
        500,
        'The restored cards read back differently from the snapshot; the restore was rolled back. Nothing was changed.',
        { snapshotId },
      );
    }
    return {
      persisted: true,
      topicid,
      restoredSnapshotId: snapshotId,
      protectionSnapshotId: protection.snapshotId,
      noteCount: visibleNow(tx, topicid),
      version: snap.version,
      notCovered: [...NOT_COVERED],
      ...(changedNodes.length ? { overwrittenUserEdits: changedNodes } : {}),
    };
  });
}

/**
 * The gates checked inside the restore's transaction (no edit can slip in between the check and the
 * restore): the person's edits since (unless force), then card ids another set took since.
 */
function checkRestorable(db: Db, snap: SnapshotRow, snapshot: SnapshotView, force: boolean) {
  const { topicid, snapshot_id: snapshotId } = snap;
  const changedNodes = userEditsSince(db, snap, snapshot);
  if (changedNodes.length && !force) {
    throw conflict(
      'USER_EDITS_PRESENT',
      `The person changed ${changedNodes.length} card(s) since snapshot version ${snap.version}; restoring would overwrite those edits. Show changedNodes to the person and send force:true only with their consent. Nothing was changed.`,
      { snapshotId, topicid, wouldRestoreToVersion: snap.version, changedNodes },
    );
  }
  const since = currentCardsSince(db, topicid, snapshotId, snapshot);
  // Only the cards that can differ are parsed; parsed before the protection snapshot, so a damaged row index writes nothing.
  const content = since.candidates ? snapshot.cards(since.candidates) : snapshot.full();
  const taken = idsTakenElsewhere(db, topicid, snapshot.noteIds, since.ids);
  if (taken.length) {
    throw conflict(
      'SNAPSHOT_CONFLICT',
      `${taken.length} card id(s) of the snapshot now belong to another study set, so it cannot be written back. Nothing was changed.`,
      { noteIds: taken.slice(0, 50) },
    );
  }
  return { changedNodes, since, content };
}
