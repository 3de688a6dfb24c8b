import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Store } from '../../src/server/ground/store/store';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { card, newDeck, newSet } from '../helpers/libraryFixtures';

/**
 * The deck counters (deck_due_days, review_hours) are checked at start against
 * the cards and the review log: counters left wrong in library.db while the
 * bridge was stopped (a hand edit, an older build, an imported file) are
 * rebuilt before /due and /stats read them, and /status says so once.
 */

const DAY = 86_400_000;

describe('deck counters left wrong in library.db are rebuilt at start and reported', () => {
  const dataDir = tempDir('sb-counters-');
  let t: TestBridge | undefined;
  let deckId: string;
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** What /due and /stats answer that the counters feed (not `now`, which moves between starts). */
  async function figures(b: TestBridge) {
    const due = await b.client.call('GET /decks/{id}/due', { params: { id: deckId } });
    const stats = await b.client.call('GET /decks/{id}/stats', {
      params: { id: deckId },
      query: { forecastDays: '90' },
    });
    return {
      due: [due.dueCount, due.newCount, due.learningCount, due.reviewCount, due.dueTodayCount, due.heldBack],
      counts: stats.counts,
      forecast: stats.forecast.filter((f) => f.due > 0),
      reviewsPerDay: stats.reviewsPerDay,
      trueRetention: stats.trueRetention,
    };
  }
  const counterWarnings = async (b: TestBridge) =>
    ((await b.owner.request<{ warnings?: string[] }>('GET', '/status')).warnings ?? []).filter((w) =>
      w.includes('deck counters'),
    );

  it("a stopped bridge's counters corrupted by hand: after a start /due and /stats are right and /status names the repair; the next start finds nothing", async () => {
    t = await startBridge({ dataDir });
    const set = await newSet(t, 'Repair set');
    const sources: string[] = [];
    for (let i = 0; i < 6; i++) sources.push(await card(t, set.topicid, { title: `repair ${i}`, text: `r ${i}` }));
    let cards: string[];
    ({ deckId, cardNoteIds: cards } = await newDeck(t, 'Repair', sources));
    const post = (path: string, body: Record<string, unknown>) =>
      t!.client.request('POST', path, { body: { ...body, confirm: true } });
    // Easy grades days ago: review cards due days apart, so nothing falls due between the two starts.
    for (const [i, daysAgo] of [
      [0, 40],
      [1, 20],
      [2, 3],
    ])
      await post(`/decks/${deckId}/reviews`, {
        cardNoteId: cards[i],
        rating: 'easy',
        reviewedAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
        durationMs: 1500,
      });
    await post(`/decks/${deckId}/cards/suspend`, { cardNoteIds: [cards[5]] });
    const right = await figures(t);
    assert.equal(right.due[1], 2, 'two new cards due');
    assert.deepEqual(await counterWarnings(t), [], 'right counters: nothing to report');
    await t.stop();
    t = undefined;

    // Offline, as a hand edit would: every date row off by 7, one hour of the log gone, one invented.
    const store = await Store.open(dataDir, { idleCheckpointMs: 0 });
    await store.write((tx) => {
      tx.run('UPDATE deck_due_days SET n = n + 7');
      tx.run('DELETE FROM review_hours WHERE hour = (SELECT min(hour) FROM review_hours)');
      tx.run(
        `INSERT INTO review_hours(deck_id, hour, n, ms, r0, r1, r2, r3, p0, p1, p2, p3)
         VALUES (?, '2020-01-01T00', 50, 99999, 50, 0, 0, 0, 0, 0, 0, 0)`,
        [deckId],
      );
    });
    assert.ok(store.get<{ n: number }>('SELECT sum(n) AS n FROM deck_due_days')!.n > 6, 'the counters are wrong');
    await store.close();

    t = await startBridge({ dataDir });
    assert.deepEqual(await figures(t), right, '/due and /stats as before the damage');
    const warnings = await counterWarnings(t);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0], /deck_due_days .*and review_hours .*were rebuilt/);
    await t.stop();

    t = await startBridge({ dataDir });
    assert.deepEqual(await counterWarnings(t), [], 'rebuilt counters agree at the next start');
    assert.deepEqual(await figures(t), right);
  });
});
