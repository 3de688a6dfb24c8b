// The Statistics panel without VS Code: its markup's accessibility (every chart titled and summarised
// in text, controls labelled) and the host's model of several decks' answers added up.
import assert from 'node:assert/strict';
import { statsModel } from '../../src/views/deckStatsModel';
import { DECK_STATS_BODY } from '../../src/webviews/deckStats/markup';
import type { DeckStats } from '../../src/client/deckStatsApi';

const CHARTS = ['counts', 'forecast', 'heatmap', 'retention', 'retrievability'];

function answer(over: Partial<DeckStats>): DeckStats {
  return {
    bridgeApiVersion: '1',
    deckId: 'd',
    now: '2026-11-29T10:00:00.000Z',
    dayStartsAt: '2026-11-29T04:00:00.000Z',
    counts: { new: 0, learning: 0, review: 0, relearning: 0, suspended: 0, buried: 0, total: 0 },
    forecast: [],
    reviewsPerDay: [],
    trueRetention: { sinceDays: 365, reviews: 0, passed: 0, rate: null, byInterval: [] },
    retrievability: { cards: 0, average: null, buckets: [] },
    ...over,
  };
}

describe('Statistics panel', () => {
  it('markup: each chart is a section named by its h2, with a drawing slot and a text summary; controls labelled', () => {
    for (const id of CHARTS) {
      assert.match(DECK_STATS_BODY, new RegExp(`<section class="chart" id="${id}" aria-labelledby="${id}-title">`));
      assert.match(DECK_STATS_BODY, new RegExp(`<h2 id="${id}-title">[^<]+</h2>`));
      assert.match(DECK_STATS_BODY, new RegExp(`id="${id}-chart"`));
      assert.match(DECK_STATS_BODY, new RegExp(`<p class="summary" id="${id}-summary">`));
    }
    const buttons = [...DECK_STATS_BODY.matchAll(/<button\b[^>]*>/g)].map((m) => m[0]);
    assert.equal(buttons.length, 3);
    for (const b of buttons) {
      assert.match(b, /type="button"/);
      assert.match(b, /aria-label="[^"]+"/);
    }
    assert.match(DECK_STATS_BODY, /id="message"[^>]*role="status"/);
  });

  it('all decks: counts and days summed, retention recomputed from the sums, retrievability weighted by cards', () => {
    const a = answer({
      counts: { new: 2, learning: 1, review: 3, relearning: 0, suspended: 1, buried: 0, total: 7 },
      forecast: [
        { date: '2026-11-29', due: 2 },
        { date: '2026-11-30', due: 1 },
      ],
      reviewsPerDay: [{ date: '2026-11-01', reviews: 4, timeMs: 4000 }],
      trueRetention: {
        sinceDays: 365,
        reviews: 4,
        passed: 3,
        rate: 0.75,
        byInterval: [{ interval: '<7d', reviews: 4, passed: 3, rate: 0.75 }],
      },
      retrievability: { cards: 2, average: 0.9, buckets: [{ range: '90-100%', cards: 2 }] },
    });
    const b = answer({
      counts: { new: 1, learning: 0, review: 1, relearning: 1, suspended: 0, buried: 1, total: 4 },
      forecast: [
        { date: '2026-11-29', due: 5 },
        { date: '2026-11-30', due: 0 },
      ],
      reviewsPerDay: [
        { date: '2026-10-31', reviews: 1, timeMs: 500 },
        { date: '2026-11-01', reviews: 2, timeMs: 1000 },
      ],
      trueRetention: {
        sinceDays: 365,
        reviews: 1,
        passed: 0,
        rate: 0,
        byInterval: [{ interval: '<7d', reviews: 1, passed: 0, rate: 0 }],
      },
      retrievability: { cards: 1, average: 0.6, buckets: [{ range: '90-100%', cards: 0 }] },
    });
    const m = statsModel('All decks', [a, b], 365);
    assert.equal(m.deckCount, 2);
    assert.deepEqual(m.counts, { new: 3, learning: 1, review: 4, relearning: 1, suspended: 1, buried: 1, total: 11 });
    assert.deepEqual(m.forecast, [
      { date: '2026-11-29', due: 7 },
      { date: '2026-11-30', due: 1 },
    ]);
    assert.deepEqual(m.reviewsPerDay, [
      { date: '2026-10-31', reviews: 1, timeMs: 500 },
      { date: '2026-11-01', reviews: 6, timeMs: 5000 },
    ]);
    assert.equal(m.trueRetention.rate, 3 / 5, 'passed over reviews, not the mean of 0.75 and 0');
    assert.deepEqual(m.trueRetention.byInterval, [{ interval: '<7d', reviews: 5, passed: 3, rate: 0.6 }]);
    assert.equal(m.retrievability?.cards, 3);
    assert.ok(Math.abs((m.retrievability?.average ?? 0) - (0.9 * 2 + 0.6) / 3) < 1e-12);
    // One deck's answer is not changed by the sums (copies, not the answer's own rows).
    assert.equal(a.forecast[0].due, 2);
  });
});
