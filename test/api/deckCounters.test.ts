import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card, newDeck, newSet } from '../helpers/libraryFixtures';

/**
 * The due counts and statistics are read from counts the store keeps as cards
 * and reviews are written (deck_due_days, review_hours). After each kind of
 * write (add, grade, suspend, unsuspend, bury, set due date, forget with and
 * without its log, re-add) every figure must still equal an independent count
 * over GET /decks/{id}/cards and /reviews.
 */

const DAY = 86_400_000;
const DAY_START_HOUR = 4; // the Default preset's

/** The study day of an instant, computed apart from the bridge: the local date of (t − dayStartHour). */
const studyDate = (iso: string) => {
  const d = new Date(new Date(iso).getTime() - DAY_START_HOUR * 3_600_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

describe('deck counts kept on write: due and stats agree with the cards and the log after every kind of write', () => {
  let t: TestBridge;
  let deckId: string;
  let sources: string[];
  let cards: string[];
  const post = (path: string, body: Record<string, unknown>) =>
    t.client.request('POST', path, { body: { ...body, confirm: true } });
  const act = (action: string, body: Record<string, unknown>) => post(`/decks/${deckId}/cards/${action}`, body);
  const grade = (i: number, rating: string, daysAgo = 0) =>
    post(`/decks/${deckId}/reviews`, {
      cardNoteId: cards[i],
      rating,
      reviewedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
      durationMs: 1000 + i,
    });

  /** Every count of /due and /stats against the cards and the log, read at the answer's own `now`. */
  async function agree(what: string) {
    const stats = await t.client.call('GET /decks/{id}/stats', {
      params: { id: deckId },
      query: { forecastDays: '90' },
    });
    const due = await t.client.call('GET /decks/{id}/due', { params: { id: deckId } });
    const list = (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId } })).cards;
    const log = (await t.client.call('GET /decks/{id}/reviews', { params: { id: deckId } })).reviews;
    const studied = list.filter((c) => !c.suspended && !c.buriedUntil);
    const byState = (s: string) => studied.filter((c) => c.state === s).length;
    assert.deepEqual(
      stats.counts,
      {
        new: byState('new'),
        learning: byState('learning'),
        review: byState('review'),
        relearning: byState('relearning'),
        suspended: list.filter((c) => c.suspended).length,
        buried: list.filter((c) => !c.suspended && c.buriedUntil).length,
        total: list.length,
      },
      what,
    );
    // Few cards: no daily limit holds any back, so /due counts every studied card due now.
    const dueNow = (states: string[]) => studied.filter((c) => states.includes(c.state) && c.due <= due.now).length;
    assert.deepEqual(due.heldBack, { newPerDay: 0, reviewsPerDay: 0 }, what);
    assert.equal(due.newCount, dueNow(['new']), what);
    assert.equal(due.learningCount, dueNow(['learning', 'relearning']), what);
    assert.equal(due.reviewCount, dueNow(['review']), what);
    assert.equal(due.count, due.newCount + due.learningCount + due.reviewCount, what);

    const perDay = new Map<string, { reviews: number; timeMs: number }>();
    for (const r of log) {
      const d = perDay.get(studyDate(r.reviewedAt)) ?? { reviews: 0, timeMs: 0 };
      d.reviews++;
      d.timeMs += r.durationMs ?? 0;
      perDay.set(studyDate(r.reviewedAt), d);
    }
    assert.deepEqual(
      stats.reviewsPerDay,
      [...perDay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, d]) => ({ date, ...d })),
      what,
    );
    const reviewState = log.filter((r) => r.stateBefore === 'review');
    assert.equal(stats.trueRetention.reviews, reviewState.length, what);
    assert.equal(stats.trueRetention.passed, reviewState.filter((r) => r.grade > 1).length, what);

    // Forecast: every studied or buried card with a memory state, by the study day it falls due (overdue: today).
    const today = stats.forecast[0].date;
    const last = stats.forecast[stats.forecast.length - 1].date;
    const expected = new Map<string, number>();
    for (const c of list.filter((c) => !c.suspended && c.state !== 'new')) {
      const key = c.due < stats.dayStartsAt ? today : studyDate(c.due);
      if (key <= last) expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    assert.deepEqual(
      stats.forecast.filter((f) => f.due > 0).map((f) => [f.date, f.due]),
      [...expected].sort(([a], [b]) => (a < b ? -1 : 1)),
      what,
    );
  }

  before(async () => {
    t = await startBridge();
    const set = await newSet(t, 'Counters set');
    sources = [];
    for (let i = 0; i < 8; i++) sources.push(await card(t, set.topicid, { title: `count ${i}`, text: `a ${i}` }));
    ({ deckId, cardNoteIds: cards } = await newDeck(t, 'Counters', sources));
  });
  after(() => t.stop());

  it('after adding, grading (into learning, review and relearning), and grading again', async () => {
    await agree('added');
    for (const i of [0, 1, 2, 3]) await grade(i, 'easy', 40);
    await grade(0, 'good', 10);
    await grade(1, 'again', 10);
    await grade(4, 'good');
    await agree('graded');
    const before = await t.client.call('GET /decks/{id}/stats', { params: { id: deckId } });
    await grade(5, 'hard');
    const after = await t.client.call('GET /decks/{id}/stats', { params: { id: deckId } });
    assert.equal(after.counts.new, before.counts.new - 1, 'a graded new card leaves the new count');
    assert.equal(
      after.reviewsPerDay.reduce((n, d) => n + d.reviews, 0),
      before.reviewsPerDay.reduce((n, d) => n + d.reviews, 0) + 1,
    );
    await agree('graded again');
  });

  it('after suspend, bury, unsuspend, set due date', async () => {
    await act('suspend', { cardNoteIds: [cards[0], cards[6]] });
    await act('bury', { cardNoteIds: [cards[2], cards[7]] });
    await agree('suspended and buried');
    await act('unsuspend', { cardNoteIds: [cards[0]] });
    await act('set-due', { cardNoteIds: [cards[3]], days: '3-7' });
    await act('set-due', { cardNoteIds: [cards[1]], days: '0' });
    await agree('unsuspended, due dates set');
  });

  it('after forget (keeping the log, then deleting it) and adding a card again', async () => {
    await act('forget', { cardNoteIds: [cards[3]] });
    await agree('forgotten, log kept');
    await act('forget', { cardNoteIds: [cards[1]], keepLog: false });
    await agree('forgotten, log deleted');
    await post(`/decks/${deckId}/cards`, { cards: [{ sourceNoteId: sources[0] }] });
    await agree('added again');
  });
});
