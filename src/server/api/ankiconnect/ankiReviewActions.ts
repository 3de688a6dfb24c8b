import { recordOperation } from '../../domain/cards/noteRows';
import { CardActions } from '../../domain/decks/cardActions';
import { nowIso } from '../../domain/library/ids';
import { DeckReviews } from '../../domain/decks/deckReviews';
import { REVIEW_RATINGS } from '../../domain/decks/deckScheduling';
import type { ActionContext, ActionDecl } from './ankiActionTypes';
import { cardsFor } from './ankiCardActions';
import { AnkiError } from './ankiError';
import { ankiIdOf } from './ankiIds';
import { checkDeckName } from './ankiLimits';
import { deckByName } from './ankiNotes';

/**
 * AnkiConnect's actions that study or set cards aside: answerCards grades as
 * POST /decks/{id}/reviews does (FSRS, the review log, the token as the one
 * who graded); suspend and unsuspend as POST /decks/{id}/cards/suspend and
 * unsuspend, deck by deck; areSuspended reads the card's queue; changeDeck
 * moves review cards (scheduling and review log with them) to another deck,
 * made when missing. A deck holds one review card per study-set card, so a
 * move onto a deck that already reviews the same card is refused whole.
 */

type Params = Record<string, unknown>;

function cardIds(p: Params): unknown[] {
  if (!Array.isArray(p.cards)) throw new AnkiError('cards must be a list');
  return p.cards;
}

/** The review cards named, grouped by deck, with whether each is suspended now. */
function byDeck(ctx: ActionContext, ids: readonly unknown[]) {
  const found = cardsFor(ctx.store, ids);
  const decks = new Map<string, string[]>();
  for (const r of found.values()) decks.set(r.deck_id, [...(decks.get(r.deck_id) ?? []), r.card_note_id]);
  const suspended = new Set(
    [...found.values()]
      .filter(
        (r) =>
          ctx.store.get<{ queue: string | null }>('SELECT queue FROM deck_cards WHERE card_note_id = ?', [
            r.card_note_id,
          ])?.queue === 'suspended',
      )
      .map((r) => r.card_note_id),
  );
  return { found, decks, suspended };
}

async function setSuspended(ctx: ActionContext, p: Params, suspend: boolean): Promise<boolean> {
  const { decks, suspended } = byDeck(ctx, cardIds(p));
  const actions = new CardActions(ctx.store, ctx.decks);
  let changed = false;
  for (const [deckId, ids] of decks) {
    const todo = ids.filter((id) => suspended.has(id) !== suspend);
    if (!todo.length) continue;
    await actions.apply(deckId, todo, { kind: suspend ? 'suspend' : 'unsuspend' }, ctx.caller.actor);
    changed = true;
  }
  // As AnkiConnect: true when at least one card changed.
  return changed;
}

async function answer(ctx: ActionContext, p: Params): Promise<boolean[]> {
  if (!Array.isArray(p.answers)) throw new AnkiError('answers must be a list of {cardId, ease}');
  const answers = p.answers as Array<{ cardId?: unknown; ease?: unknown } | null>;
  for (const a of answers)
    if (!Number.isInteger(a?.ease) || (a!.ease as number) < 1 || (a!.ease as number) > 4)
      throw new AnkiError('ease must be 1 (again), 2 (hard), 3 (good) or 4 (easy)');
  const found = cardsFor(
    ctx.store,
    answers.map((a) => a?.cardId),
  );
  const reviews = new DeckReviews(ctx.store, ctx.decks);
  const out: boolean[] = [];
  for (const a of answers) {
    const card = found.get(a!.cardId);
    if (!card) {
      out.push(false);
      continue;
    }
    const rating = REVIEW_RATINGS[(a!.ease as number) - 1];
    await reviews.grade(card.deck_id, { cardNoteId: card.card_note_id, rating }, ctx.caller.actor);
    out.push(true);
  }
  return out;
}

async function changeDeck(ctx: ActionContext, p: Params): Promise<null> {
  const ids = cardIds(p);
  const name = checkDeckName(p.deck);
  const moving = [...cardsFor(ctx.store, ids).values()];
  const target = deckByName(ctx.store, name) ?? (moving.length ? (await ctx.decks.create(name)).deckId : undefined);
  const todo = moving.filter((r) => r.deck_id !== target);
  if (!target || !todo.length) return null;
  const now = nowIso();
  const actor = ctx.caller.actor;
  await ctx.store.write((tx) => {
    for (const r of todo) {
      if (tx.get('SELECT 1 AS x FROM deck_cards WHERE deck_id = ? AND source_note_id = ?', [target, r.source_note_id]))
        throw new AnkiError(
          `card ${ankiIdOf(r.card_note_id)} was not moved: deck ${name} already reviews its note (nothing was moved)`,
        );
      tx.run('UPDATE deck_cards SET deck_id = ?, modified_at = ? WHERE card_note_id = ?', [
        target,
        now,
        r.card_note_id,
      ]);
      tx.run('UPDATE review_logs SET deck_id = ? WHERE card_note_id = ?', [target, r.card_note_id]);
    }
    const noteIds = todo.map((r) => r.card_note_id);
    for (const deck of new Set([target, ...todo.map((r) => r.deck_id)]))
      recordOperation(tx, { topicid: deck, kind: 'deck-cards', actor, noteIds, now });
  });
  return null;
}

export const REVIEW_ACTIONS: Record<string, ActionDecl> = {
  changeDeck: { scope: 'write', run: (p, ctx) => changeDeck(ctx, p) },
  answerCards: { scope: 'write', run: (p, ctx) => answer(ctx, p) },
  suspend: { scope: 'write', run: (p, ctx) => setSuspended(ctx, p, true) },
  unsuspend: { scope: 'write', run: (p, ctx) => setSuspended(ctx, p, false) },
  areSuspended: {
    scope: 'read',
    run: (p, ctx) => {
      const asked = cardIds(p);
      const { found, suspended } = byDeck(ctx, asked);
      return asked.map((id) => {
        const r = found.get(id);
        return r ? suspended.has(r.card_note_id) : null;
      });
    },
  },
};
