import assert from 'node:assert/strict';
import type * as TsFsrs from 'ts-fsrs' with { 'resolution-mode': 'import' };
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

const DAY = 86_400_000;
const DAY_START_HOUR = 4; // the Default preset's
const UNKNOWN = '11111111-2222-4333-8444-555555555555';
// ts-fsrs's CommonJS build (its typings are ESM-only).
const { default_w } = require('ts-fsrs') as typeof TsFsrs;

/** The study day of an instant, computed apart from the bridge: the local date of (t − dayStartHour). */
const studyDate = (iso: string) => {
  const d = new Date(new Date(iso).getTime() - DAY_START_HOUR * 3_600_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

describe('GET /decks/{id}/stats: counts, forecast, reviews per day, true retention (checked against the log)', () => {
  let t: TestBridge;
  let deckId: string;
  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Stats set');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(
        (
          await t.client.call('POST /study-sets/{id}/notes', {
            params: { id: set.topicid },
            body: { title: `stat ${i}`, confirm: true },
          })
        ).noteid!,
      );
    deckId = (await t.client.createDeck('Stats')).deckId;
    const cards = (
      await t.client.call('POST /decks/{id}/cards', {
        params: { id: deckId },
        body: { cards: ids.map((sourceNoteId) => ({ sourceNoteId })), confirm: true },
      })
    ).cards.map((c) => c.cardNoteId);
    const grade = (i: number, rating: string, daysAgo: number, durationMs: number) =>
      t.client.request('POST', `/decks/${deckId}/reviews`, {
        body: {
          cardNoteId: cards[i],
          rating,
          reviewedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
          durationMs,
          confirm: true,
        },
      });
    for (const i of [0, 1, 2, 3]) await grade(i, 'easy', 60, 3000 + i);
    await grade(0, 'good', 20, 5000);
    await grade(1, 'again', 20, 7000);
    await grade(2, 'hard', 19, 2000);
    await grade(3, 'good', 2, 1000);
    await grade(4, 'good', 1, 4000);
    await t.client.request('POST', `/decks/${deckId}/cards/suspend`, {
      body: { cardNoteIds: [cards[6]], confirm: true },
    });
  });
  after(() => t.stop());

  it('every figure agrees with an independent count over GET /decks/{id}/reviews and /cards', async () => {
    const stats = await t.client.call('GET /decks/{id}/stats', {
      params: { id: deckId },
      query: { forecastDays: '90' },
    });
    const log = (await t.client.call('GET /decks/{id}/reviews', { params: { id: deckId } })).reviews;
    const cards = (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId } })).cards;
    assert.equal(log.length, 9);

    const perDay = new Map<string, { reviews: number; timeMs: number }>();
    for (const r of log) {
      const d = perDay.get(studyDate(r.reviewedAt)) ?? { reviews: 0, timeMs: 0 };
      d.reviews++;
      d.timeMs += r.durationMs ?? 0;
      perDay.set(studyDate(r.reviewedAt), d);
    }
    assert.deepEqual(
      stats.reviewsPerDay,
      [...perDay].map(([date, d]) => ({ date, ...d })),
    );

    const reviewState = log.filter((r) => r.stateBefore === 'review');
    assert.equal(stats.trueRetention.reviews, reviewState.length);
    assert.equal(stats.trueRetention.passed, reviewState.filter((r) => r.grade > 1).length);
    assert.equal(stats.trueRetention.rate, stats.trueRetention.passed / stats.trueRetention.reviews);
    assert.ok(stats.trueRetention.reviews >= 3, 'cards 0, 1 and 2 were reviewed in review state');
    assert.equal(
      stats.trueRetention.byInterval.reduce((n: number, b: any) => n + b.reviews, 0),
      stats.trueRetention.reviews,
    );

    const byState = (s: string) => cards.filter((c) => !c.suspended && c.state === s).length;
    assert.deepEqual(stats.counts, {
      new: byState('new'),
      learning: byState('learning'),
      review: byState('review'),
      relearning: byState('relearning'),
      suspended: 1,
      buried: 0,
      total: 7,
    });

    const today = stats.forecast[0].date;
    assert.equal(today, studyDate(stats.now));
    assert.equal(stats.forecast.length, 90);
    assert.ok(stats.forecast[0].due >= 2, 'the relearning and learning cards are overdue: counted today');
    const expected = new Map<string, number>();
    for (const c of cards.filter((c) => !c.suspended && c.state !== 'new')) {
      const key = c.due < stats.dayStartsAt ? today : studyDate(c.due);
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    const got = new Map(stats.forecast.filter((f: any) => f.due > 0).map((f: any) => [f.date, f.due]));
    for (const [date, n] of expected)
      if (stats.forecast.some((f: any) => f.date === date)) assert.equal(got.get(date), n, date);
    assert.equal(
      [...got.values()].reduce((a: number, b: any) => a + b, 0),
      [...expected].filter(([d]) => stats.forecast.some((f: any) => f.date === d)).reduce((a, [, n]) => a + n, 0),
    );
  });

  it("?retrievability=true: each card's recall probability by FSRS-6's curve, from its stability and last review", async () => {
    const plain = await t.client.call('GET /decks/{id}/stats', { params: { id: deckId } });
    assert.equal(plain.retrievability, undefined, 'asked for only');
    const stats = await t.client.call('GET /decks/{id}/stats', {
      params: { id: deckId },
      query: { retrievability: 'true' },
    });
    const cards = (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId } })).cards;
    // FSRS-6: R(t) = (1 + f·t/S)^-d, f = 0.9^(-1/d) - 1 (R(S) = 90 %), d = w[20].
    const d = default_w[20];
    const f = Math.pow(0.9, -1 / d) - 1;
    const recall = cards
      .filter((c) => !c.suspended && c.state !== 'new')
      .map((c) => Math.pow(1 + (f * (Date.parse(stats.now) - Date.parse(c.lastReviewAt!))) / DAY / c.stability, -d));
    assert.equal(recall.length, 5, 'cards 0-4 were graded; 5 is new, 6 suspended');
    const retrievability = stats.retrievability!;
    assert.equal(retrievability.cards, recall.length);
    const mean = recall.reduce((a, b) => a + b, 0) / recall.length;
    // ts-fsrs rounds each R to 8 decimals.
    assert.ok(Math.abs(retrievability.average! - mean) < 1e-8, `${retrievability.average} vs ${mean}`);
    const expected = new Array(10).fill(0);
    for (const r of recall) expected[Math.min(9, Math.floor(r * 10))]++;
    assert.deepEqual(
      retrievability.buckets.map((b) => b.cards),
      expected,
    );
    assert.equal(retrievability.buckets[9].range, '90-100%');
    assert.ok(
      recall.some((r) => r < 0.9),
      'card 1 (again 20 days ago) or 0 (good 20 days ago) is below 90 %',
    );
  });

  it('refusals: forecastDays 0 → 422 INVALID_INPUT; an unknown deck → 404', async () => {
    const bad = await t.client.raw('GET', `/decks/${deckId}/stats`, { query: { forecastDays: '0' } });
    assert.equal(bad.status, 422);
    assert.equal(bad.json<any>().error.code, 'INVALID_INPUT');
    const none = await t.client.raw('GET', `/decks/${UNKNOWN}/stats`);
    assert.equal(none.status, 404);
    assert.equal(none.json<any>().error.code, 'TOPIC_NOT_FOUND');
  });
});
