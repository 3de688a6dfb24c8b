import { deckOptionsOf } from '../../domain/decks/deckPresets';
import { nextIntervals, parseSchedule, REVIEW_RATINGS } from '../../domain/decks/deckScheduling';
import type { UiHost } from '../../domain/ui/uiHost';
import type { ActionContext, ActionDecl } from './ankiActionTypes';
import { cardInfo, cardsFor } from './ankiCardActions';
import { AnkiError } from './ankiError';
import { htmlToText } from './ankiFields';
import { ankiIdOf } from './ankiIds';
import { modelByName } from './ankiModels';
import { madeCardText, madeFieldValues } from './ankiModelNotes';
import { noteIdsFor, readAnkiNotes } from './ankiNoteRead';
import { deckByName, setOfDeck } from './ankiNotes';

/**
 * AnkiConnect's Edit, Add Cards and reviewer, in the VS Code window that hosts
 * the bridge: guiEditNote selects the note's card in the Study Sets view (where
 * a card is renamed, commented and its text edited); guiAddCards starts New
 * Card in the deck's study set with the note's first field as the title and
 * the others as its text, for the person to confirm; guiCurrentCard reads the
 * card the review panel in front shows. Without a window (headless) they
 * answer as AnkiConnect does when Anki's window is not there.
 */

/** AnkiConnect's answer when Anki has no reviewer (aqt.mw.reviewer is None). */
export const NO_REVIEWER = 'reviewer is not available';
/** Our answer, in AnkiConnect's words, when no window can show a dialog. */
export const NO_WINDOW = 'window is not available: no VS Code window hosts this bridge (it runs headless)';

function gui(ui: UiHost): NonNullable<UiHost['ankiGui']> {
  if (!ui.ankiGui) throw new AnkiError(NO_WINDOW);
  return ui.ankiGui.bind(ui);
}

async function editNote(p: Record<string, unknown>, ctx: ActionContext): Promise<null> {
  const open = gui(ctx.ui);
  const noteid = noteIdsFor(ctx.store, [p.note]).get(p.note as number);
  const note = noteid ? readAnkiNotes(ctx.store, [noteid])[0] : undefined;
  if (!note) throw new AnkiError(`note was not found: ${String(p.note)}`);
  const title =
    ctx.store.get<{ title: string }>('SELECT title FROM topics WHERE topicid = ?', [note.topicid])?.title ?? '';
  await open({ kind: 'editNote', topicid: note.topicid, title, noteid: note.noteid });
  return null;
}

/** The New Card draft of a note: its deck and type must exist, as Anki's Add Cards dialog needs them. */
function draftOf(ctx: ActionContext, raw: unknown) {
  const n = (raw ?? {}) as { deckName?: unknown; modelName?: unknown; fields?: unknown };
  const deckId = typeof n.deckName === 'string' ? deckByName(ctx.store, n.deckName) : undefined;
  if (!deckId) throw new AnkiError(`deck was not found: ${String(n.deckName)}`);
  const model = modelByName(ctx.store, n.modelName);
  const given = n.fields && typeof n.fields === 'object' ? (n.fields as Record<string, unknown>) : {};
  // As Anki's dialog: a field the type lacks is left out, nothing is refused for being empty.
  const known = Object.fromEntries(
    Object.entries(given).filter(([k]) => model.fields.includes(k) || (model.kind === 'Cloze' && k === 'Extra')),
  );
  const renamed = Object.fromEntries(
    Object.entries(known).map(([k, v]) => [k === 'Extra' && !model.fields.includes(k) ? 'Back Extra' : k, v]),
  );
  const values = madeFieldValues(model, renamed);
  const text =
    model.kind === 'Cloze' && !/\{\{c(?=[\d,]*\d)[\d,]+::/.test(values[0] ?? '') ? null : madeCardText(model, values);
  const deckTitle =
    ctx.store.get<{ title: string }>('SELECT title FROM topics WHERE topicid = ?', [deckId])?.title ?? '';
  const topicid = setOfDeck(ctx.store, deckId, deckTitle);
  if (!topicid) throw new AnkiError(`deck was not found: ${String(n.deckName)} (it has no study set to add to)`);
  const setTitle =
    ctx.store.get<{ title: string }>('SELECT title FROM topics WHERE topicid = ?', [topicid])?.title ?? '';
  return {
    topicid,
    setTitle,
    title: text?.title ?? htmlToText(values[0] ?? ''),
    text: text?.body ?? htmlToText(values.slice(1).join('\n')),
  };
}

async function addCards(p: Record<string, unknown>, ctx: ActionContext): Promise<number> {
  const open = gui(ctx.ui);
  await open({ kind: 'addCards', draft: p.note === undefined || p.note === null ? null : draftOf(ctx, p.note) });
  // Anki answers the id of the note not yet added, which modern Anki has as 0: the card exists once the person adds it.
  return 0;
}

/** The first template's name of a note type (a review card here is its note's one card). */
function templateOf(ctx: ActionContext, modelName: string): string {
  try {
    return modelByName(ctx.store, modelName).templates[0]?.name ?? 'Card 1';
  } catch {
    return 'Card 1';
  }
}

async function currentCard(_p: Record<string, unknown>, ctx: ActionContext) {
  if (!ctx.ui.ankiGui) throw new AnkiError(NO_REVIEWER);
  const { shown } = await ctx.ui.ankiGui({ kind: 'currentCard' });
  const id = shown ? ankiIdOf(shown.cardNoteId) : undefined;
  const row = id === undefined ? undefined : cardsFor(ctx.store, [id]).get(id);
  // As AnkiConnect's README: null when no card is under review.
  if (!shown || !row) return null;
  const info = cardInfo(ctx.store, row, 1);
  const schedule = parseSchedule(row.fsrs, row.due_at ?? row.created_at);
  const intervals = nextIntervals(schedule, new Date(), deckOptionsOf(ctx.store, row.deck_id).options);
  return {
    cardId: info.cardId,
    fields: info.fields,
    fieldOrder: info.fieldOrder,
    question: info.question,
    answer: info.answer,
    buttons: [1, 2, 3, 4],
    nextReviews: REVIEW_RATINGS.map((r) => intervals[r]),
    modelName: info.modelName,
    deckName: info.deckName,
    css: info.css,
    template: templateOf(ctx, info.modelName),
  };
}

export const GUI_ACTIONS: Record<string, ActionDecl> = {
  guiEditNote: { scope: 'write', run: editNote },
  guiAddCards: { scope: 'write', run: addCards },
  guiCurrentCard: { scope: 'read', run: currentCard },
};
