import type { Store } from '../../ground/store/store';

/**
 * `nextDueAt`, one definition for every view that answers it (the deck list,
 * GET /decks/{id}, GET /decks/{id}/due with or without ?until=): the earliest
 * moment after now at which a card that is not due now can be studied: its due
 * date, or the end of its burying when that is later. Suspended cards never
 * come due. ?until= only chooses which cards a list holds, so it does not move
 * this (it did: null in a plan three days ahead, set in the plain queue).
 */

/** When a card (columns prefixed `c`, e.g. `c.` or ``) can be studied. */
const studyAt = (c: string) =>
  `max(coalesce(${c}due_at, ${c}created_at), CASE WHEN ${c}queue = 'buried' THEN coalesce(${c}buried_until, '') ELSE '' END)`;

/** An aggregate over deck_cards rows: their nextDueAt after the SQL value `now` (a parameter such as `?1`). */
export const nextDueSql = (c: string, now: string) =>
  `min(CASE WHEN coalesce(${c}queue, '') <> 'suspended' AND ${studyAt(c)} > ${now} THEN ${studyAt(c)} END)`;

/**
 * The deck's nextDueAt at `nowText` (ISO); null when no card waits. The same as nextDueSql over the deck,
 * read as index ranges: the first due moment after now of each state of the studied queue, and the buried cards.
 */
export function nextDueAt(store: Store, deckId: string, nowText: string): string | null {
  const due = 'coalesce(due_at, created_at)';
  const queued = [0, 1, 2, 3].map(
    (s) =>
      `SELECT min(${due}) AS d FROM deck_cards WHERE deck_id = ?1 AND queue IS NULL AND state = ${s} AND ${due} > ?2`,
  );
  // A buried card's studyAt, read from migration 17's index of buried cards (the other would read every buried row).
  const buriedAt = `max(${due}, coalesce(buried_until, ''))`;
  const buried = `SELECT min(${buriedAt}) AS d FROM deck_cards INDEXED BY deck_cards_buried
    WHERE deck_id = ?1 AND queue = 'buried' AND ${buriedAt} > ?2`;
  return (
    store.get<{ d: string | null }>(`SELECT min(d) AS d FROM (${[...queued, buried].join(' UNION ALL ')})`, [
      deckId,
      nowText,
    ])?.d ?? null
  );
}
