import { invalidInput } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store } from '../../ground/store/store';
import { recordPerSet, editNotConfirmed } from './editBatch';
import { assertPrefix } from './expectedPrefix';
import { type Db, getNote, inList, type NoteRow, type NoteTextRow, reindexNote } from './noteRows';
import { touchNote } from './rows/cardRowsEdit';
import { retitleCard, writeBody } from './rows/cardRowsTexts';

/**
 * A card's title and body (texts index 0), each guarded by expectedPrefix.
 * A card and its reference copies (notes.reference_of) share their content,
 * so an edit reaches the whole reference group. Writing a body onto an
 * excerpt card detaches it from the page text (kind 'text', excerpt 0) while
 * the source link (bookmd5, page, rect) stays.
 */

export interface TextEdit {
  text: string;
  expectedPrefix: string;
  /** Body only: true stores kind 'markdown', false 'text'; absent keeps a markdown body markdown. */
  markdown?: boolean;
}

/** A hashtag token: `#` then a letter or digit, at the start or after whitespace (`# Heading` is not one). */
const HASHTAG_TOKEN = /(?:^|\s)#([\p{L}\p{N}_][\p{L}\p{M}\p{N}_./-]*)/gu;

/** Hashtag paths written inline in `text` (without `#`, trailing `.`/`/`/`-` cut). Pure. */
export function inlineHashtags(text: string): string[] {
  return [...new Set([...text.matchAll(HASHTAG_TOKEN)].map((m) => m[1].replace(/[./-]+$/, '')))];
}

/** 422 HASHTAG_ROUTE_REQUIRED: tags are card data written through POST /notes/hashtags, never body text. */
function refuseInlineHashtags(noteid: string, text: string): void {
  const hashtags = inlineHashtags(text);
  if (!hashtags.length) return;
  throw invalidInput(
    `The text contains hashtag${hashtags.length > 1 ? 's' : ''} ${hashtags.map((h) => `#${h}`).join(', ')}; hashtags are written with POST /notes/hashtags, not in the body. Remove them from the text (a Markdown heading needs a space: "# Title"). Nothing was changed.`,
    {
      hashtags,
      example: {
        method: 'POST',
        path: '/notes/hashtags',
        body: { noteIds: [noteid], operation: 'add', hashtags, confirm: true },
      },
    },
    'HASHTAG_ROUTE_REQUIRED',
  );
}

/**
 * The card and every card sharing its content: the original (reference_of ??
 * noteid) and its visible references; the card itself first. A hidden
 * original is written too, because readers of a reference read its content.
 */
export function referenceGroup(db: Db, note: NoteRow): NoteRow[] {
  const original = note.reference_of ?? note.noteid;
  const members = db.all<NoteRow>(
    'SELECT * FROM notes WHERE noteid = ? OR (reference_of = ? AND hidden = 0) ORDER BY created_at, noteid',
    [original, original],
  );
  return [note, ...members.filter((m) => m.noteid !== note.noteid)];
}

/** The other visible cards an edit reached. */
const others = (group: readonly NoteRow[], noteid: string) =>
  group.filter((m) => m.noteid !== noteid && m.hidden === 0).map((m) => m.noteid);

/** POST /notes/{id}/title: sets notes.title on the card and its reference group. */
export async function editTitle(store: Store, noteid: string, edit: TextEdit, actor: Actor) {
  const now = nowIso();
  const group = await store.write((tx) => {
    const note = getNote(tx, noteid);
    assertPrefix(note.title, edit.expectedPrefix, 'PREFIX_MISMATCH', `The title of card ${noteid}`, {
      noteid,
      field: 'title',
    });
    const group = referenceGroup(tx, note);
    const changed = group.filter((m) => m.title !== edit.text);
    for (const m of changed) {
      retitleCard(tx, m.noteid, edit.text, now);
      reindexNote(tx, m.noteid);
    }
    recordPerSet(tx, changed, 'title', actor, now);
    return group;
  });
  const ids = group.map((m) => m.noteid);
  const stored = store.all<{ noteid: string; title: string }>(
    `SELECT noteid, title FROM notes WHERE noteid IN ${inList(ids.length)}`,
    ids,
  );
  const disagree = ids.filter((id) => stored.find((r) => r.noteid === id)?.title !== edit.text);
  if (disagree.length) throw editNotConfirmed('title', { noteIds: disagree });
  return { persisted: true, noteid, title: edit.text, updatedReferences: others(group, noteid) };
}

const bodyOf = (db: Db, noteid: string) =>
  db.get<NoteTextRow>('SELECT * FROM note_texts WHERE noteid = ? AND idx = 0', [noteid]);

/** POST /notes/{id}/text: sets the body (index 0) of the card and its reference group; '' removes the body. */
export async function editText(store: Store, noteid: string, edit: TextEdit, actor: Actor) {
  refuseInlineHashtags(noteid, edit.text);
  const now = nowIso();
  const { group, detached, kind } = await store.write((tx) => {
    const note = getNote(tx, noteid);
    const body = bodyOf(tx, noteid);
    assertPrefix(body?.text ?? '', edit.expectedPrefix, 'PREFIX_MISMATCH', `The text of card ${noteid}`, {
      noteid,
      field: 'text',
    });
    const kind =
      edit.markdown === true || (edit.markdown === undefined && body?.kind === 'markdown') ? 'markdown' : 'text';
    const group = referenceGroup(tx, note);
    const detached: string[] = [];
    const changed: NoteRow[] = [];
    for (const m of group) {
      const b = m.noteid === noteid ? body : bodyOf(tx, m.noteid);
      const wasExcerpt = b !== undefined && (b.excerpt === 1 || b.kind === 'excerpt');
      const same =
        edit.text === '' ? b === undefined : b !== undefined && b.text === edit.text && b.kind === kind && !wasExcerpt;
      if (same) continue;
      writeBody(tx, m.noteid, edit.text === '' ? null : { text: edit.text, kind });
      touchNote(tx, m.noteid, now);
      reindexNote(tx, m.noteid);
      if (wasExcerpt) detached.push(m.noteid);
      changed.push(m);
    }
    recordPerSet(tx, changed, 'text', actor, now);
    return { group, detached, kind };
  });
  const disagree = group
    .map((m) => m.noteid)
    .filter((id) => {
      const b = bodyOf(store, id);
      return edit.text === '' ? b !== undefined : b?.text !== edit.text || b.excerpt !== 0 || b.kind !== kind;
    });
  if (disagree.length) throw editNotConfirmed('text', { noteIds: disagree });
  return {
    persisted: true,
    noteid,
    kind: edit.text === '' ? null : kind,
    detachedFromExcerpt: detached.includes(noteid),
    updatedReferences: others(group, noteid),
    ...(detached.some((id) => id !== noteid) ? { detachedReferences: detached.filter((id) => id !== noteid) } : {}),
  };
}
