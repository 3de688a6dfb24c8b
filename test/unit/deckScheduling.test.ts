import assert from 'node:assert/strict';
import {
  formatInterval,
  fsrsColumn,
  newSchedule,
  nextDues,
  nextDuesKey,
  nextIntervals,
  parseSchedule,
  review,
  viewOf,
} from '../../src/server/domain/decks/deckScheduling';

const T0 = new Date('2025-03-01T08:00:00.000Z');
const MIN = 60_000;
const DAY = 86_400_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('deckScheduling (FSRS, ts-fsrs defaults)', () => {
  it('a new card is due at once, state new, nothing reviewed', () => {
    const s = newSchedule(T0);
    assert.deepEqual(viewOf(s), {
      due: T0.toISOString(),
      state: 'new',
      reps: 0,
      lapses: 0,
      stability: 0,
      difficulty: 0,
      lastReviewAt: null,
    });
  });

  it("fsrsColumn: a new card's schedule is stored as NULL and read back whole from its due; any other as its JSON", () => {
    const s = newSchedule(T0);
    assert.equal(fsrsColumn(s), null);
    assert.deepEqual(parseSchedule(fsrsColumn(s), s.due), s);
    const graded = review(s, 'good', T0).schedule;
    assert.equal(fsrsColumn(graded), JSON.stringify(graded));
    // State new but not blank (an imported card with a memory state): its JSON, as before.
    for (const odd of [
      { ...s, stability: 3 },
      { ...s, reps: 1 },
      { ...s, last_review: T0.toISOString() },
      { ...s, extra: 1 },
    ])
      assert.equal(fsrsColumn(odd), JSON.stringify(odd));
  });

  it('a new card: again 1m < hard 6m < good 10m (learning steps) < easy (days, straight to review)', () => {
    const s = newSchedule(T0);
    const d = nextDues(s, T0);
    assert.equal(d.again.toISOString(), at(MIN).toISOString());
    assert.equal(d.hard.toISOString(), at(6 * MIN).toISOString());
    assert.equal(d.good.toISOString(), at(10 * MIN).toISOString());
    assert.equal(d.easy.toISOString(), at(8 * DAY).toISOString());
    assert.deepEqual(nextIntervals(s, T0), { again: '1m', hard: '6m', good: '10m', easy: '8d' });

    const good = review(s, 'good', T0);
    assert.equal(good.state, 'learning');
    assert.equal(good.schedule.due, at(10 * MIN).toISOString());
    assert.equal(good.schedule.reps, 1);
    assert.equal(good.schedule.last_review, T0.toISOString());
    const easy = review(s, 'easy', T0);
    assert.equal(easy.state, 'review');
    assert.equal(easy.scheduledDays, 8);
    assert.ok(easy.schedule.due > good.schedule.due);
    assert.ok(review(s, 'again', T0).schedule.due < good.schedule.due);
  });

  it('good through the steps graduates to review with growing intervals; again then relearns with a lapse', () => {
    const learning = review(newSchedule(T0), 'good', T0).schedule;
    const graduated = review(learning, 'good', new Date(learning.due));
    assert.equal(graduated.state, 'review');
    assert.ok(graduated.scheduledDays >= 1);
    const second = review(graduated.schedule, 'good', new Date(graduated.schedule.due));
    assert.equal(second.state, 'review');
    assert.ok(second.scheduledDays > graduated.scheduledDays, `${second.scheduledDays} > ${graduated.scheduledDays}`);
    assert.equal(second.schedule.reps, 3);

    const dues = nextDues(second.schedule, new Date(second.schedule.due));
    assert.ok(dues.again < dues.hard && dues.hard < dues.good && dues.good < dues.easy, 'again < hard < good < easy');

    const lapse = review(second.schedule, 'again', new Date(second.schedule.due));
    assert.equal(lapse.state, 'relearning');
    assert.equal(lapse.schedule.lapses, 1);
    assert.equal(lapse.schedule.reps, 4);
    assert.equal(
      lapse.schedule.due,
      new Date(Date.parse(second.schedule.due) + 10 * MIN).toISOString(),
      'the 10-minute relearning step',
    );
  });

  it('a stored schedule survives JSON (dates as ISO strings) and gives the same next step', () => {
    const s = review(newSchedule(T0), 'good', T0).schedule;
    const back = parseSchedule(JSON.stringify(s), 'unused');
    assert.deepEqual(back, s);
    assert.deepEqual(review(back, 'hard', at(DAY)), review(s, 'hard', at(DAY)));
    // Missing or unreadable state counts as a new card due at the fallback date.
    assert.equal(viewOf(parseSchedule(null, T0.toISOString())).state, 'new');
    assert.equal(parseSchedule('{broken', T0.toISOString()).due, T0.toISOString());
  });

  it('formats intervals as Anki words them', () => {
    assert.equal(formatInterval(0), '1m');
    assert.equal(formatInterval(10 * MIN), '10m');
    assert.equal(formatInterval(3 * 3_600_000), '3h');
    assert.equal(formatInterval(3 * DAY), '3d');
    assert.equal(formatInterval(45 * DAY), '1.5mo');
    assert.equal(formatInterval(730 * DAY), '2y');
  });

  it('nextDuesKey: moments with the same key give due dates the same distance after them, in every state', () => {
    const steps = {
      desiredRetention: 0.85,
      maximumInterval: 365,
      learningSteps: ['2m', '15m', '2h'],
      relearningSteps: ['20m'],
    };
    const learning = review(newSchedule(T0), 'good', T0).schedule;
    const graduated = review(learning, 'easy', at(20 * MIN)).schedule;
    const relearning = review(graduated, 'again', at(9 * DAY)).schedule;
    const late = review(graduated, 'good', at(40 * DAY)).schedule;
    const schedules = { new: newSchedule(T0), learning, review: graduated, relearning, late };
    let sameKey = 0;
    for (const [name, s] of Object.entries(schedules))
      for (const options of [undefined, steps]) {
        const seen = new Map<number, number[]>();
        // Every 37 minutes over four days from the schedule's due moment: several moments share each key.
        for (let t = Date.parse(s.due); t < Date.parse(s.due) + 4 * DAY; t += 37 * MIN) {
          const when = new Date(t);
          const dues = nextDues(s, when, options);
          const ms = (['again', 'hard', 'good', 'easy'] as const).map((r) => dues[r].getTime() - t);
          const key = nextDuesKey(s, when);
          const first = seen.get(key);
          if (first) {
            sameKey++;
            assert.deepEqual(ms, first, `${name} at ${when.toISOString()} (key ${key})`);
          } else seen.set(key, ms);
        }
        if (name !== 'new') assert.ok(seen.size >= 4, `${name}: the key moves with the UTC date`);
      }
    assert.ok(sameKey > 1000);
  });
});
