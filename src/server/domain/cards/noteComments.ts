import { invalidInput, notFound } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store, WriteTx } from '../../ground/store/store';
import { editNotConfirmed } from './editBatch';
import { assertPrefix } from './expectedPrefix';
import { linkNotes, linkTarget, linkedBothWays, noteLinkUrl, parseNoteLink, unlinkIfUnused } from './noteLinks';
import { type Db, getNote, type NoteTextRow, recordOperation, reindexNote } from './noteRows';
import { touchNote } from './rows/cardRowsEdit';
import { insertComment, removeComment, replaceComment } from './rows/cardRowsTexts';

/**
 * Comments: note_texts index 1..N of a card (index 0 is the body, edited
 * through /text). Appending takes max+1; deleting moves the later comments up
 * by one, so indexes stay dense. A comment that is one whole
 * `studybridge://note/<id>` line is a link (kind 'link', two-way note_links).
 */

/** 422 for index 0 (the body); 404 COMMENT_NOT_FOUND for an index the card does not have. */
function commentAt(db: Db, noteid: string, index: number): NoteTextRow {
  if (index === 0) {
    throw invalidInput(
      `Index 0 is the card body, not a comment: comments are texts[].index 1..N. Edit the body with POST /notes/${noteid}/text. Nothing was changed.`,
      { noteid, index, bodyRoute: `/notes/${noteid}/text` },
    );
  }
  const row = db.get<NoteTextRow>('SELECT * FROM note_texts WHERE noteid = ? AND idx = ?', [noteid, index]);
  if (row) return row;
  const indexes = comments(db, noteid).map((c) => c.idx);
  throw notFound(
    'COMMENT_NOT_FOUND',
    `Card ${noteid} has no comment ${index} (it has ${indexes.length ? `indexes ${indexes.join(', ')}` : 'no comments'}). Read texts[] with POST /notes/batch-get.`,
    { noteid, index, indexes },
  );
}

const comments = (db: Db, noteid: string) =>
  db.all<NoteTextRow>('SELECT * FROM note_texts WHERE noteid = ? AND idx > 0 ORDER BY idx', [noteid]);

/** The row a comment's text becomes: a link line is stored canonically, to a target that must exist. */
function commentValue(
  db: Db,
  noteid: string,
  text: string,
): { text: string; kind: 'text' | 'link'; target: string | null } {
  const target = parseNoteLink(text);
  if (!target) return { text, kind: 'text', target: null };
  return { text: noteLinkUrl(linkTarget(db, noteid, target)), kind: 'link', target };
}

function touch(tx: WriteTx, topicid: string, noteid: string, actor: Actor, now: string): void {
  touchNote(tx, noteid, now);
  reindexNote(tx, noteid);
  recordOperation(tx, { topicid, kind: 'comment', actor, noteIds: [noteid], now });
}

/** Read-back of one written comment (and its link rows). */
function confirmComment(
  store: Store,
  noteid: string,
  index: number,
  value: { text: string; kind: string; target: string | null },
): void {
  const row = store.get<NoteTextRow>('SELECT * FROM note_texts WHERE noteid = ? AND idx = ?', [noteid, index]);
  const ok =
    row?.text === value.text &&
    row.kind === value.kind &&
    row.excerpt === 0 &&
    (!value.target || linkedBothWays(store, noteid, value.target));
  if (!ok) throw editNotConfirmed('comment', { noteid, index });
}

/** POST /notes/{id}/comments: appends at index max+1. */
export async function appendComment(store: Store, noteid: string, text: string, actor: Actor) {
  const now = nowIso();
  const { index, value } = await store.write((tx) => {
    const note = getNote(tx, noteid);
    const value = commentValue(tx, noteid, text);
    const index =
      (tx.get<{ m: number | null }>('SELECT max(idx) AS m FROM note_texts WHERE noteid = ?', [noteid])?.m ?? 0) + 1;
    insertComment(tx, noteid, index, value.text, value.kind);
    if (value.target) linkNotes(tx, noteid, value.target, now);
    touch(tx, note.topicid, noteid, actor, now);
    return { index, value };
  });
  confirmComment(store, noteid, index, value);
  return { persisted: true, noteid, index, kind: value.kind, ...(value.target ? { linked: value.target } : {}) };
}

export interface CommentEdit {
  text: string;
  expectedPrefix: string;
}

/** POST /notes/{id}/comments/{index}: replaces one comment, guarded by expectedPrefix (409 COMMENT_CHANGED). */
export async function editComment(store: Store, noteid: string, index: number, edit: CommentEdit, actor: Actor) {
  const now = nowIso();
  const { value, unlinked } = await store.write((tx) => {
    const note = getNote(tx, noteid);
    const row = commentAt(tx, noteid, index);
    assertPrefix(row.text, edit.expectedPrefix, 'COMMENT_CHANGED', `Comment ${index} of card ${noteid}`, {
      noteid,
      index,
    });
    const value = commentValue(tx, noteid, edit.text);
    replaceComment(tx, noteid, index, value.text, value.kind);
    const oldTarget = row.kind === 'link' ? parseNoteLink(row.text) : null;
    const unlinked =
      oldTarget && oldTarget !== value.target && unlinkIfUnused(tx, noteid, oldTarget) ? oldTarget : null;
    if (value.target) linkNotes(tx, noteid, value.target, now);
    touch(tx, note.topicid, noteid, actor, now);
    return { value, unlinked };
  });
  confirmComment(store, noteid, index, value);
  return {
    persisted: true,
    noteid,
    index,
    kind: value.kind,
    ...(value.target ? { linked: value.target } : {}),
    ...(unlinked ? { unlinked } : {}),
  };
}

/** POST /notes/{id}/comments/{index}/delete: removes one comment; later comments move up by one; a link's rows go with it. */
export async function deleteComment(store: Store, noteid: string, index: number, expectedPrefix: string, actor: Actor) {
  const now = nowIso();
  const { expected, unlinked } = await store.write((tx) => {
    const note = getNote(tx, noteid);
    const row = commentAt(tx, noteid, index);
    assertPrefix(row.text, expectedPrefix, 'COMMENT_CHANGED', `Comment ${index} of card ${noteid}`, { noteid, index });
    const expected = comments(tx, noteid)
      .filter((c) => c.idx !== index)
      .map((c) => ({ idx: c.idx > index ? c.idx - 1 : c.idx, text: c.text }));
    removeComment(tx, noteid, index);
    const target = row.kind === 'link' ? parseNoteLink(row.text) : null;
    const unlinked = target && unlinkIfUnused(tx, noteid, target) ? target : null;
    touch(tx, note.topicid, noteid, actor, now);
    return { expected, unlinked };
  });
  const stored = comments(store, noteid);
  if (
    stored.length !== expected.length ||
    stored.some((c, i) => c.idx !== expected[i].idx || c.text !== expected[i].text)
  ) {
    throw editNotConfirmed('comment delete', { noteid, index });
  }
  return {
    persisted: true,
    noteid,
    deleted: index,
    renumbered: expected.filter((c) => c.idx >= index).length,
    commentCount: expected.length,
    ...(unlinked ? { unlinked } : {}),
  };
}
