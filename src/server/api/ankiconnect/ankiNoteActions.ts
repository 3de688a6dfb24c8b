import { describeCardDelete } from '../../domain/approvals/approvalSummaries';
import { deleteNotes, previewDelete } from '../../domain/cards/noteDelete';
import { editHashtags, type HashtagOperation } from '../../domain/cards/noteHashtags';
import type { ActionContext, ActionDecl } from './ankiActionTypes';
import { AnkiError } from './ankiError';
import { hashtagToTag } from './ankiFields';
import { tagsToHashtags } from './ankiLimits';
import { noteIdsFor, OWNER_NOTE, withChildCards } from './ankiNoteRead';

/**
 * AnkiConnect's tag and note-removal actions. Tags are the cards' hashtags
 * (`a::b` is `a/b`). deleteNotes is the REST route POST /notes/delete: an
 * agent's call waits for the person's approval where the policy says so,
 * held as that route's request, so the person sees and allows the same
 * thing either way.
 */

type Params = Record<string, unknown>;

/** Our card ids for the AnkiConnect note ids of `params[key]`; an unknown id is refused. */
function notesOf(ctx: ActionContext, params: Params, key = 'notes'): string[] {
  const asked = params[key];
  if (!Array.isArray(asked)) throw new AnkiError(`${key} must be a list`);
  const found = noteIdsFor(ctx.store, asked);
  const missing = asked.filter((id) => !found.has(id as number));
  if (missing.length) throw new AnkiError(`note was not found: ${String(missing[0])}`);
  return [...new Set(found.values())];
}

/** Anki's tags (a space-separated string or a list) as hashtag paths. */
function hashtagsOf(tags: unknown): string[] {
  const list = typeof tags === 'string' ? tags.split(/\s+/) : Array.isArray(tags) ? tags : undefined;
  if (!list) throw new AnkiError('tags must be a string of space-separated tags or a list');
  return tagsToHashtags(list);
}

async function editTags(ctx: ActionContext, noteIds: string[], operation: HashtagOperation, hashtags: string[]) {
  if (!noteIds.length || (operation !== 'replace' && !hashtags.length)) return null;
  await editHashtags(ctx.store, { noteIds, operation, hashtags }, ctx.caller.actor);
  return null;
}

const MAX_DELETE = 50;

async function removeNotes(ctx: ActionContext, p: Params): Promise<null> {
  const asked = notesOf(ctx, p);
  if (!asked.length) return null;
  if (asked.length > MAX_DELETE)
    throw new AnkiError(`deleteNotes takes at most ${MAX_DELETE} notes per call here (as POST /notes/delete)`);
  // A note of several Anki cards goes with the child cards that hold them, as Anki deletes a note's cards.
  const noteIds = withChildCards(ctx.store, asked);
  if (noteIds.length > MAX_DELETE)
    throw new AnkiError(
      `deleteNotes takes at most ${MAX_DELETE} cards per call here, a note's cards counted (as POST /notes/delete)`,
    );
  const caller = ctx.caller;
  const policy = ctx.approvals?.policy ?? 'never';
  if (caller.tokenId !== null && policy !== 'never' && ctx.approvals) {
    const dryRun = previewDelete(ctx.store, noteIds);
    const approval = await ctx.approvals.hold(
      { tokenId: caller.tokenId, name: caller.name },
      { method: 'POST', path: '/notes/delete', params: {}, query: {}, body: { noteIds, confirm: true } },
      { text: `${caller.name}: ${describeCardDelete(dryRun)} (AnkiConnect deleteNotes)`, dryRun },
    );
    throw new AnkiError(
      `deleteNotes waits for the person's approval (${approval.approvalId}, until ${approval.expiresAt}): nothing was deleted yet. Once allowed, the notes are deleted; findNotes shows when.`,
    );
  }
  await deleteNotes(ctx.store, noteIds, caller.actor);
  return null;
}

export const NOTE_ACTIONS: Record<string, ActionDecl> = {
  getTags: {
    scope: 'read',
    run: (_p, ctx) =>
      ctx.store
        .all<{ path: string }>(
          `SELECT DISTINCT h.path FROM deck_cards c JOIN notes n ON n.noteid = ${OWNER_NOTE} AND n.hidden = 0
           JOIN note_hashtags h ON h.noteid = n.noteid ORDER BY h.path`,
        )
        .map((r) => hashtagToTag(r.path)),
  },
  addTags: { scope: 'write', run: (p, ctx) => editTags(ctx, notesOf(ctx, p), 'add', hashtagsOf(p.tags)) },
  removeTags: { scope: 'write', run: (p, ctx) => editTags(ctx, notesOf(ctx, p), 'remove', hashtagsOf(p.tags)) },
  updateNoteTags: {
    scope: 'write',
    run: (p, ctx) => editTags(ctx, notesOf(ctx, { notes: [p.note] }), 'replace', hashtagsOf(p.tags)),
  },
  replaceTags: {
    scope: 'write',
    run: async (p, ctx) => {
      const noteIds = notesOf(ctx, p);
      const [from] = hashtagsOf(typeof p.tag_to_replace === 'string' ? p.tag_to_replace : '');
      const to = hashtagsOf(typeof p.replace_with_tag === 'string' ? p.replace_with_tag : '');
      if (!from) throw new AnkiError('tag_to_replace is missing');
      const having = ctx.store
        .all<{ noteid: string }>(
          `SELECT DISTINCT noteid FROM note_hashtags WHERE lower(path) = lower(?) AND noteid IN (${noteIds.map(() => '?').join(',') || "''"})`,
          [from, ...noteIds],
        )
        .map((r) => r.noteid);
      await editTags(ctx, having, 'remove', [from]);
      await editTags(ctx, having, 'add', to);
      return null;
    },
  },
  deleteNotes: { scope: 'write', run: (p, ctx) => removeNotes(ctx, p) },
};
