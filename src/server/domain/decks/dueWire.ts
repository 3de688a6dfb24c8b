import type { Store } from '../../ground/store/store';
import { RawJson } from '../../ground/text/rawJson';
import type { Decks } from '../library/decks';
import type { DeckOptions } from './deckOptions';
import { buttons, dueAnswer, type DueCard, type ShownCard } from './deckDue';

/**
 * GET /decks/{id}/due's answer as sent: each card as JSON text (RawJson), its unchanging part (all but the
 * buttons) serialised once per kept card and reused while the pick is (dueCache.ts), so a repeated answer
 * costs its buttons and the joining. The same bytes as JSON.stringify of dueQueue's answer at the same `now`
 * (test/api/deckDueWire.test.ts).
 */
export function dueQueueForWire(
  store: Store,
  decks: Decks,
  deckId: string,
  opts: { now?: Date; limit?: number; until?: Date },
) {
  // Typed as dueQueue's answer: the cards serialise to DueCard's JSON.
  const answer = dueAnswer(store, decks, deckId, opts, cardJson);
  return answer as unknown as Omit<typeof answer, 'cards'> & { cards: DueCard[] };
}

/** A kept card's JSON without its closing brace, by its card (the object a kept pick holds while it is kept). */
const heads = new WeakMap<object, string>();

/** JSON.stringify({...shown.card, ...buttons}): the card's keys, then nextIntervals and nextDues. */
function cardJson(shown: ShownCard, now: Date, nowText: string, options: DeckOptions): RawJson {
  let head = heads.get(shown.card);
  if (head === undefined) heads.set(shown.card, (head = JSON.stringify(shown.card).slice(0, -1)));
  const { nextIntervals, nextDues } = buttons(shown, now, nowText, options);
  return new RawJson(
    `${head},"nextIntervals":${JSON.stringify(nextIntervals)},"nextDues":${JSON.stringify(nextDues)}}`,
  );
}
