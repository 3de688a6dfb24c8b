import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { CounterTally, type CountedCard, type CountedReview } from '../../src/server/domain/decks/counterTally';
import { REVIEW_HOURS_COLUMNS } from '../../src/server/ground/store/deckDueDaysMigration';
import { Store } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';

/**
 * The tally a bulk insert keeps with the insert triggers dropped must give the
 * counter rows the triggers give: random deck cards and reviews (every queue,
 * state, a due date or none, review states, the interval buckets' edges,
 * ratings, a duration or none) inserted with the triggers on, in a real store,
 * and the same rows tallied; the deck's counter rows must be equal.
 */

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const card = fc.record({
  queue: fc.constantFrom(null, 'suspended', 'buried'),
  state: fc.integer({ min: 0, max: 3 }),
  due: fc.option(fc.integer({ min: -40 * DAY, max: 40 * DAY })),
  created: fc.integer({ min: -5 * DAY, max: 0 }),
});
const review = fc.record({
  at: fc.integer({ min: 0, max: 3 * DAY }),
  duration: fc.option(fc.integer({ min: 0, max: 90_000 })),
  stateBefore: fc.integer({ min: 0, max: 3 }),
  elapsed: fc.constantFrom(0, 1, 6.5, 7, 20.9, 21, 89, 90, 400),
  rating: fc.integer({ min: 1, max: 4 }),
});

describe('the deck counter tally of a bulk insert equals what the insert triggers count', () => {
  const dir = tempDir('sb-counter-tally-');
  let store: Store;
  before(async () => {
    store = await Store.open(dir, { idleCheckpointMs: 0 });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('for random cards and reviews, row for row', async () => {
    let deck = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(card, { maxLength: 25 }),
        fc.array(review, { maxLength: 25 }),
        async (cards, reviews) => {
          const deckId = `deck-${++deck}`;
          const tally = new CounterTally();
          await store.write((tx) => {
            cards.forEach((c, i) => {
              const row: CountedCard = {
                deck_id: deckId,
                queue: c.queue,
                state: c.state,
                due_at: c.due === null ? null : iso(T0 + c.due),
                created_at: iso(T0 + c.created),
              };
              // fsrs carries the state: deck_cards_state_ins sets the column from it.
              tx.run(
                `INSERT INTO deck_cards(card_note_id, deck_id, source_note_id, due_at, created_at, modified_at, queue, state, fsrs)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
                [
                  `${deckId}-c${i}`,
                  deckId,
                  `${deckId}-n${i}`,
                  row.due_at,
                  row.created_at,
                  row.created_at,
                  row.queue,
                  row.state,
                  JSON.stringify({ state: row.state }),
                ],
              );
              tally.card(row);
            });
            reviews.forEach((r, i) => {
              const row: CountedReview = {
                deck_id: deckId,
                reviewed_at: iso(T0 + r.at),
                duration_ms: r.duration,
                state_before: r.stateBefore,
                elapsed_days: r.elapsed,
                rating: r.rating,
              };
              tx.run(
                `INSERT INTO review_logs(id, deck_id, card_note_id, rating, state_before, due_before, stability, difficulty,
                 elapsed_days, last_elapsed_days, scheduled_days, learning_steps, reviewed_at, duration_ms, due_after, actor)
               VALUES (?, ?, ?, ?, ?, ?, 1, 5, ?, 0, 1, 0, ?, ?, ?, 'agent')`,
                [
                  `${deckId}-r${i}`,
                  deckId,
                  `${deckId}-c0`,
                  row.rating,
                  row.state_before,
                  row.reviewed_at,
                  row.elapsed_days,
                  row.reviewed_at,
                  row.duration_ms,
                  row.reviewed_at,
                ],
              );
              tally.review(row);
            });
          });
          const [days, hours] = tally.upserts().map((u) => u.rows.map((r) => JSON.stringify(r)).sort());
          const stored = (sql: string) =>
            store
              .all(sql, [deckId])
              .map((r) => JSON.stringify(Object.values(r)))
              .sort();
          assert.deepEqual(days, stored('SELECT deck_id, queue, state, day, n FROM deck_due_days WHERE deck_id = ?'));
          assert.deepEqual(
            hours,
            stored(`SELECT ${REVIEW_HOURS_COLUMNS.join(', ')} FROM review_hours WHERE deck_id = ?`),
          );
          assert.equal(tally.cards, cards.length);
          assert.equal(tally.reviews, reviews.length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
