import { invalidInput } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { SqlParam } from '../../ground/store/journal';
import type { Store } from '../../ground/store/store';
import { recordPerSet, editNotConfirmed, sameMembers } from './editBatch';
import { type Db, getNotes, inList, reindexNote } from './noteRows';
import { touchNote } from './rows/cardRowsEdit';
import { changeHashtags } from './rows/cardRowsHashtags';

/**
 * Hashtags of cards: stored as full leaf paths (`Math/Algebra`, no `#`);
 * ancestors (`Math`) are derived by readers and never written. Paths compare
 * case-insensitively and a set keeps the first spelling it stored.
 */

/**
 * One path segment: starts with a letter, digit or `_`, then letters, digits,
 * combining marks, `_`, `-` or `.`. No spaces (a space ends a hashtag in text),
 * no empty segments.
 */
const SEGMENT = /^[\p{L}\p{N}_][\p{L}\p{M}\p{N}_.-]*$/u;
export const MAX_HASHTAG_LENGTH = 200;
/** Hashtags one call may name (POST /notes/hashtags, AnkiConnect's tags of a note). */
export const MAX_HASHTAGS_PER_CALL = 100;
export const HASHTAG_RULE =
  'a full path of segments separated by "/", an optional leading "#", each segment letters, digits, "_", "-" or "." (starting with a letter, digit or "_"), no spaces, no empty segments, at most 200 characters';

/** `' #Math/Algebra '` → `'Math/Algebra'`; null when it is not a valid full path. Pure. */
export function normaliseHashtag(raw: string): string | null {
  const path = raw.trim().replace(/^#/, '');
  if (!path || [...path].length > MAX_HASHTAG_LENGTH) return null;
  return path.split('/').every((seg) => SEGMENT.test(seg)) ? path : null;
}

/** The comparison key: paths equal ignoring case are one hashtag. */
export const hashtagKey = (path: string) => path.toLowerCase();

/** Normalised, deduplicated (first spelling in the list wins) paths; any invalid one → 422 INVALID_HASHTAG naming all. */
export function parseHashtags(raw: readonly string[]): string[] {
  const invalid: string[] = [];
  const byKey = new Map<string, string>();
  for (const r of raw) {
    const path = normaliseHashtag(r);
    if (path === null) invalid.push(r);
    else if (!byKey.has(hashtagKey(path))) byKey.set(hashtagKey(path), path);
  }
  if (invalid.length) {
    throw invalidInput(
      `Invalid hashtag${invalid.length > 1 ? 's' : ''} ${invalid.map((s) => JSON.stringify(s)).join(', ')}: each must be ${HASHTAG_RULE}. Nothing was changed.`,
      { invalid, rule: HASHTAG_RULE },
      'INVALID_HASHTAG',
    );
  }
  return [...byKey.values()];
}

export type HashtagOperation = 'add' | 'remove' | 'replace';

export interface HashtagEdit {
  noteIds: readonly string[];
  operation: HashtagOperation;
  hashtags: readonly string[];
  includeDescendants?: boolean;
}

export interface HashtagPlan {
  noteid: string;
  topicid: string;
  before: string[];
  after: string[];
  changed: boolean;
}

/** Each card's stored paths in the order they were stored. */
export function hashtagsOf(db: Db, noteIds: readonly string[]): Map<string, string[]> {
  const rows = db.all<{ noteid: string; path: string }>(
    `SELECT noteid, path FROM note_hashtags WHERE noteid IN ${inList(noteIds.length)} ORDER BY rowid`,
    noteIds as SqlParam[],
  );
  const out = new Map<string, string[]>(noteIds.map((id) => [id, []]));
  for (const r of rows) out.get(r.noteid)?.push(r.path);
  return out;
}

/** key → the first spelling stored in a set (visible cards; `exclude` leaves cards out, for replace). */
function setSpellings(db: Db, topicid: string, exclude: readonly string[]): Map<string, string> {
  const rows = db.all<{ path: string }>(
    `SELECT h.path, min(h.rowid) AS first FROM note_hashtags h JOIN notes n ON n.noteid = h.noteid
     WHERE n.topicid = ? AND n.hidden = 0${exclude.length ? ` AND h.noteid NOT IN ${inList(exclude.length)}` : ''}
     GROUP BY h.path ORDER BY first`,
    [topicid, ...(exclude as SqlParam[])],
  );
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(hashtagKey(r.path))) out.set(hashtagKey(r.path), r.path);
  return out;
}

/** Refuses input the operation cannot take (422) before any card is looked at. */
function checkEdit(edit: HashtagEdit): string[] {
  if (edit.includeDescendants !== undefined && edit.operation !== 'remove') {
    throw invalidInput(
      `includeDescendants is only valid with operation "remove" (got "${edit.operation}"). Nothing was changed.`,
      { operation: edit.operation },
    );
  }
  const tags = parseHashtags(edit.hashtags);
  if (!tags.length && edit.operation !== 'replace') {
    throw invalidInput(
      `operation "${edit.operation}" needs at least one hashtag (replace with [] clears a card's hashtags). Nothing was changed.`,
      { operation: edit.operation },
    );
  }
  return tags;
}

/** What the edit does to each card (reads only; runs on the store for a dry-run or inside the write). */
export function planHashtags(db: Db, edit: HashtagEdit): HashtagPlan[] {
  const tags = checkEdit(edit);
  const notes = getNotes(db, edit.noteIds);
  const ids = notes.map((n) => n.noteid);
  const current = hashtagsOf(db, ids);
  const spellings = new Map<string, Map<string, string>>();
  const spell = (topicid: string, tag: string) => {
    if (!spellings.has(topicid))
      spellings.set(topicid, setSpellings(db, topicid, edit.operation === 'replace' ? ids : []));
    return spellings.get(topicid)!.get(hashtagKey(tag)) ?? tag;
  };
  const keys = tags.map(hashtagKey);
  const removes = (path: string) => {
    const k = hashtagKey(path);
    return keys.some((t) => k === t || (edit.includeDescendants === true && k.startsWith(`${t}/`)));
  };
  return notes.map((n) => {
    const before = current.get(n.noteid) ?? [];
    let after: string[];
    if (edit.operation === 'remove') after = before.filter((p) => !removes(p));
    else if (edit.operation === 'replace') after = tags.map((t) => spell(n.topicid, t));
    else {
      after = [...before];
      const have = new Set(before.map(hashtagKey));
      for (const t of tags) {
        if (have.has(hashtagKey(t))) continue;
        have.add(hashtagKey(t));
        after.push(spell(n.topicid, t));
      }
    }
    return { noteid: n.noteid, topicid: n.topicid, before, after, changed: !sameMembers(before, after) };
  });
}

/** The dry-run: what would change, nothing written. */
export function previewHashtags(db: Db, edit: HashtagEdit) {
  const plan = planHashtags(db, edit);
  return {
    operation: edit.operation,
    wouldChange: plan.filter((p) => p.changed).map(({ noteid, before, after }) => ({ noteid, before, after })),
    unchanged: plan.filter((p) => !p.changed).map((p) => p.noteid),
  };
}

/**
 * Applies the edit in one transaction with one operation per set, then reads
 * the tags back from the store: persisted:true only when they agree.
 */
export async function editHashtags(store: Store, edit: HashtagEdit, actor: Actor) {
  const now = nowIso();
  const plan = await store.write((tx) => {
    const plan = planHashtags(tx, edit);
    const changed = plan.filter((p) => p.changed);
    for (const p of changed) {
      const gone = p.before.filter((x) => !p.after.includes(x));
      const added = p.after.filter((x) => !p.before.includes(x));
      changeHashtags(tx, p.noteid, gone, added);
      touchNote(tx, p.noteid, now);
      reindexNote(tx, p.noteid);
    }
    recordPerSet(tx, changed, 'hashtags', actor, now);
    return plan;
  });
  const stored = hashtagsOf(
    store,
    plan.map((p) => p.noteid),
  );
  const disagree = plan.filter((p) => !sameMembers(stored.get(p.noteid) ?? [], p.after)).map((p) => p.noteid);
  if (disagree.length) throw editNotConfirmed('hashtag', { noteIds: disagree });
  return {
    persisted: true,
    operation: edit.operation,
    results: plan.map((p) => ({ noteid: p.noteid, hashtags: stored.get(p.noteid) ?? [] })),
    changed: plan.filter((p) => p.changed).length,
  };
}
