import assert from 'node:assert/strict';
import type { AnkiCard } from '../../src/server/domain/decks/anki/ankiCollection';
import { scheduleFromAnki } from '../../src/server/domain/decks/anki/ankiSchedule';
import { newSchedule } from '../../src/server/domain/decks/deckScheduling';

const card = (over: Partial<AnkiCard>): AnkiCard => ({
  id: 1,
  nid: 1,
  did: '1',
  ord: 0,
  flags: 0,
  type: 0,
  queue: 0,
  due: 1,
  ivl: 0,
  factor: 2500,
  reps: 0,
  lapses: 0,
  data: '',
  ...over,
});

describe('Anki scheduling (the import plan)', () => {
  const crt = Date.UTC(2026, 0, 1) / 1000;

  it("a new card's schedule is a new schedule at `now`, one frozen object shared by the import's new cards", () => {
    const now = new Date('2026-11-30T12:00:00.000Z');
    const a = scheduleFromAnki(card({ id: 1 }), crt, undefined, now);
    const b = scheduleFromAnki(card({ id: 2, due: 7 }), crt, undefined, now);
    assert.deepEqual(a, newSchedule(now));
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a));
    const later = scheduleFromAnki(card({ id: 3 }), crt, undefined, new Date(now.getTime() + 1000));
    assert.notEqual(later, a);
    assert.equal(later.due, '2026-11-30T12:00:01.000Z');
  });

  it("a reviewed card's schedule is its own: due from crt, the interval, FSRS memory state from data", () => {
    const now = new Date('2026-11-30T12:00:00.000Z');
    const s = scheduleFromAnki(
      card({ type: 2, queue: 2, due: 300, ivl: 12, reps: 4, data: '{"s":9.5,"d":4}' }),
      crt,
      undefined,
      now,
    );
    assert.ok(!Object.isFrozen(s));
    assert.equal(s.due, new Date((crt + 300 * 86_400) * 1000).toISOString());
    assert.deepEqual([s.stability, s.difficulty, s.scheduled_days, s.state, s.reps], [9.5, 4, 12, 2, 4]);
  });
});
