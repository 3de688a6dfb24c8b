import type { ActionContext, ActionDecl } from './ankiActionTypes';
import { AnkiError } from './ankiError';
import { madeModels, modelByName, modelNames } from './ankiModels';
import { ankiIdOf } from './ankiIds';
import type { AnkiMedia } from './ankiMedia';
import { fieldValues, noteIdsFor, noteInfo, readAnkiNotes } from './ankiNoteRead';
import { deckByName } from './ankiNotes';
import { DuplicateIndex, planNote } from './ankiNotePlan';
import { checkDeckName } from './ankiLimits';
import { findAnkiNotes } from './ankiNotePages';
import { CARD_ACTIONS } from './ankiCardActions';
import { GUI_ACTIONS } from './ankiGuiActions';
import { MISC_ACTIONS } from './ankiMiscActions';
import { NOTE_ACTIONS } from './ankiNoteActions';
import { REVIEW_ACTIONS } from './ankiReviewActions';

/**
 * The AnkiConnect actions this bridge serves, each with the token scope it
 * needs (a read token cannot add or change anything). Each calls the domain
 * directly; `multi` and `requestPermission` are the dispatcher's.
 */

export type { ActionContext, ActionDecl };

type Params = Record<string, unknown>;

const MODEL_IDS: Record<string, number> = { Basic: 1, Cloze: 2 };

const noteList = (params: Params, key = 'notes'): unknown[] => {
  const list = params[key];
  if (!Array.isArray(list)) throw new AnkiError(`${key} must be a list`);
  return list;
};

/**
 * Each note's plan, or its refusal: all the notes of a call are checked before
 * any is written. `adding`: an earlier note of the call counts as there (as
 * Anki adds them one by one); canAddNotes judges each against the collection.
 * The event loop is given back every PLAN_CHUNK notes (1,000 notes plan in 0.3-1 s).
 */
async function planAll(ctx: ActionContext, notes: unknown[], adding: boolean) {
  const duplicates = new DuplicateIndex(ctx.store);
  const checked: { plan: ReturnType<typeof planNote> | null; error: string | null }[] = [];
  for (const [i, n] of notes.entries()) {
    if (i > 0 && i % PLAN_CHUNK === 0) await new Promise((r) => setImmediate(r));
    try {
      const plan = planNote(ctx, n, duplicates);
      if (adding) duplicates.remember(plan);
      checked.push({ plan, error: null });
    } catch (e) {
      if (e instanceof AnkiError) checked.push({ plan: null, error: e.message });
      else throw e;
    }
  }
  return checked;
}

const PLAN_CHUNK = 50;

/**
 * The `picture` entries of addNote's and updateNoteFields's note: each file is
 * stored as storeMediaFile stores it, then appended as `<img>` to the fields it
 * names (to the field's current value when the update does not give it).
 * Audio and video are refused: a card holds pictures, not sound.
 */
async function withPictures(ctx: ActionContext, note: unknown, current: Record<string, string> = {}): Promise<unknown> {
  if (!note || typeof note !== 'object') return note;
  const n = note as { picture?: unknown; audio?: unknown; video?: unknown; fields?: Record<string, unknown> };
  for (const kind of ['audio', 'video'] as const) {
    if (n[kind] !== undefined && !(Array.isArray(n[kind]) && n[kind].length === 0))
      throw new AnkiError(`${kind} is not served here: cards hold pictures, not sound or video; leave ${kind} out`);
  }
  if (n.picture === undefined) return note;
  const fields: Record<string, unknown> = { ...(n.fields ?? {}) };
  for (const pic of Array.isArray(n.picture) ? n.picture : [n.picture]) {
    const p = (pic ?? {}) as { fields?: unknown };
    const name = await ctx.media.store(p as Parameters<AnkiMedia['store']>[0]);
    const tag = `<img src="${name.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
    for (const f of Array.isArray(p.fields) ? p.fields : [])
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a field is any JSON value, coerced as before
      if (typeof f === 'string') fields[f] = String(fields[f] ?? current[f] ?? '') + tag;
  }
  return { ...n, fields };
}

const findIds = (ctx: ActionContext, query: unknown) => findAnkiNotes(ctx.store, query);

/** Actions the dispatcher answers itself. */
const DISPATCHED = ['multi', 'requestPermission'];

/** apiReflect: which of the asked actions (all when `actions` is null) this bridge serves. */
function reflect(p: Params) {
  const scopes = Array.isArray(p.scopes) ? p.scopes.filter((s) => s === 'actions') : [];
  if (!scopes.length) return { scopes: [], actions: [] };
  const served = [...Object.keys(ACTIONS), ...DISPATCHED].sort();
  const asked = Array.isArray(p.actions) ? p.actions : null;
  return { scopes, actions: asked ? served.filter((a) => asked.includes(a)) : served };
}

export const ACTIONS: Record<string, ActionDecl> = {
  ...CARD_ACTIONS,
  ...NOTE_ACTIONS,
  ...MISC_ACTIONS,
  ...GUI_ACTIONS,
  ...REVIEW_ACTIONS,
  apiReflect: { scope: 'read', run: reflect },
  version: { scope: 'read', run: () => 6 },
  deckNames: { scope: 'read', run: (_p, ctx) => ctx.decks.list().map((d) => d.title) },
  deckNamesAndIds: {
    scope: 'read',
    run: (_p, ctx) => Object.fromEntries(ctx.decks.list().map((d) => [d.title, ankiIdOf(d.deckId) ?? null])),
  },
  createDeck: {
    scope: 'write',
    run: async (p, ctx) => {
      const name = checkDeckName(p.deck);
      const id = deckByName(ctx.store, name) ?? (await ctx.decks.create(name)).deckId;
      return ankiIdOf(id) ?? null;
    },
  },
  modelNames: { scope: 'read', run: (_p, ctx) => modelNames(ctx.store) },
  modelNamesAndIds: {
    scope: 'read',
    run: (_p, ctx) => ({
      ...MODEL_IDS,
      ...Object.fromEntries(madeModels(ctx.store).map((m) => [m.name, Number(m.id)])),
    }),
  },
  modelFieldNames: { scope: 'read', run: (p, ctx) => [...modelByName(ctx.store, p.modelName).fields] },
  addNote: {
    scope: 'write',
    run: async (p, ctx) => {
      const [id] = await ctx.notes.add([planNote(ctx, await withPictures(ctx, p.note))], ctx.caller.actor);
      return ankiIdOf(id);
    },
  },
  addNotes: {
    scope: 'write',
    // All or nothing: any refusal answers every note's error (null for the good ones) and adds none.
    run: async (p, ctx) => {
      const notes: unknown[] = [];
      for (const n of noteList(p)) notes.push(await withPictures(ctx, n));
      const checked = await planAll(ctx, notes, true);
      if (checked.some((c) => c.error)) throw new AnkiError(JSON.stringify(checked.map((c) => c.error)));
      const ids = await ctx.notes.add(
        checked.map((c) => c.plan!),
        ctx.caller.actor,
      );
      return ids.map((id) => ankiIdOf(id));
    },
  },
  canAddNotes: {
    scope: 'read',
    run: async (p, ctx) => (await planAll(ctx, noteList(p), false)).map((c) => c.error === null),
  },
  canAddNotesWithErrorDetail: {
    scope: 'read',
    run: async (p, ctx) =>
      (await planAll(ctx, noteList(p), false)).map((c) =>
        c.error === null ? { canAdd: true } : { canAdd: false, error: c.error },
      ),
  },
  findNotes: { scope: 'read', run: async (p, ctx) => (await findIds(ctx, p.query)).map((n) => ankiIdOf(n.noteid)) },
  notesInfo: {
    scope: 'read',
    run: async (p, ctx) => {
      if (p.query !== undefined) return (await findIds(ctx, p.query)).map(noteInfo);
      const asked = noteList(p);
      const ids = noteIdsFor(ctx.store, asked);
      const notes = new Map(readAnkiNotes(ctx.store, [...new Set(ids.values())]).map((n) => [n.noteid, n]));
      // As AnkiConnect: an unknown id gives an empty object in its place.
      return asked.map((a) => {
        const note = notes.get(ids.get(a as number) ?? '');
        return note ? noteInfo(note) : {};
      });
    },
  },
  updateNoteFields: {
    scope: 'write',
    run: async (p, ctx) => {
      const asked = (p.note ?? {}) as { id?: unknown };
      const noteid = noteIdsFor(ctx.store, [asked.id]).get(asked.id as number);
      const stored = noteid ? readAnkiNotes(ctx.store, [noteid])[0] : undefined;
      if (!noteid || !stored) throw new AnkiError('note was not found');
      const note = (await withPictures(ctx, p.note, fieldValues(stored))) as { fields?: unknown };
      if (!note.fields || typeof note.fields !== 'object') throw new AnkiError('note fields are missing');
      await ctx.notes.updateFields(noteid, note.fields as Record<string, unknown>, ctx.caller.actor);
      return null;
    },
  },
  // AnkiConnect's updateNote: updateNoteFields when `fields` is given (cards the new fields make are added), then
  // updateNoteTags when `tags` is, as AnkiConnect runs them.
  updateNote: {
    scope: 'write',
    run: async (p, ctx) => {
      const note = (p.note ?? {}) as Params;
      const [fields, tags] = [Object.hasOwn(note, 'fields'), Object.hasOwn(note, 'tags')];
      if (!fields && !tags) throw new AnkiError('Must provide a "fields" or "tags" property.');
      if (fields) await ACTIONS.updateNoteFields.run(p, ctx);
      if (tags) await ACTIONS.updateNoteTags.run({ note: note.id, tags: note.tags }, ctx);
      return null;
    },
  },
  storeMediaFile: { scope: 'write', run: (p, ctx) => ctx.media.store(p) },
  retrieveMediaFile: {
    scope: 'read',
    run: (p, ctx) =>
      typeof p.filename === 'string' ? (ctx.media.read(p.filename)?.toString('base64') ?? false) : false,
  },
  guiBrowse: {
    scope: 'write',
    // Opens the first card found in the person's window (its study set, the card focused); answers the review cards found.
    run: async (p, ctx) => {
      const found = await findIds(ctx, p.query ?? '');
      const first = found[0];
      if (first) {
        const title =
          ctx.store.get<{ title: string }>('SELECT title FROM topics WHERE topicid = ?', [first.topicid])?.title ?? '';
        await ctx.ui.open({ topicid: first.topicid, title, isDeck: false, noteid: first.noteid });
      }
      return found.flatMap((n) => n.decks.map((d) => ankiIdOf(d.cardNoteId)));
    },
  },
};
