import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { cards, newDeck, newSet } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

/** YYYY-MM-DD of the bridge's local day (same process, same time zone). */
const localDate = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

describe('GET /decks/{id}/due?until= (#18 §3)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('answers what is due by then in the order added, relearning cards in the list as in dueTodayCount; bad until is 422 and changes nothing', async () => {
    const set = await newSet(t, 'Due by');
    const ids = await cards(t, set.topicid, ['Delta', 'Alpha', 'Charlie', 'Bravo']);
    const { deckId, cardNoteIds: cardIds } = await newDeck(t, 'Due by deck', ids);
    const [, alpha, charlie] = cardIds;
    const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
    const grade = (cardNoteId: string, rating: 'again' | 'hard' | 'good' | 'easy', reviewedAt: string) =>
      t.client.call('POST /decks/{id}/reviews', {
        params: { id: deckId },
        body: { cardNoteId, rating, reviewedAt, confirm: true },
      });
    // Alpha: learned, then forgotten a minute ago → relearning, due in about 9 minutes (not due now).
    await grade(alpha, 'good', at(3 * 3600_000));
    assert.equal((await grade(alpha, 'good', at(2 * 3600_000))).state, 'review');
    const lapse = await grade(alpha, 'again', at(60_000));
    assert.equal(lapse.state, 'relearning');
    assert.ok(Date.parse(lapse.due) > Date.now(), 'relearning card not due yet');
    // Charlie: in review, due days from now.
    await grade(charlie, 'good', at(3 * 3600_000));
    const charlieDue = (await grade(charlie, 'good', at(2 * 3600_000))).due;
    assert.ok(Date.parse(charlieDue) > Date.now() + 86_400_000);

    const now = await t.client.call('GET /decks/{id}/due', { params: { id: deckId } });
    assert.deepEqual(
      now.cards.map((c) => c.cardNoteId),
      [cardIds[0], cardIds[3]],
      'due now: the two new cards',
    );
    assert.equal(now.until, undefined);

    // By the end of today: the new cards and the relearning one, in the order added; dueTodayCount counts the same cards.
    const today = localDate(new Date());
    const byToday = await t.client.call('GET /decks/{id}/due', { params: { id: deckId }, query: { until: today } });
    const dayEnd = new Date(new Date().getFullYear(), new Date().getMonth(), new Date().getDate() + 1).getTime();
    const expected = Date.parse(lapse.due) < dayEnd ? [cardIds[0], alpha, cardIds[3]] : [cardIds[0], cardIds[3]];
    assert.deepEqual(
      byToday.cards.map((c) => c.cardNoteId),
      expected,
    );
    assert.equal(byToday.count, expected.length);
    assert.equal(byToday.dueCount, expected.length);
    // dueTodayCount ends with the study day (the default preset's day starts at 4:00), a date with the calendar
    // day: they differ only when the relearning card falls due between the two ends (near midnight or 4:00).
    const clock = new Date();
    const studyDayEnd = new Date(
      clock.getFullYear(),
      clock.getMonth(),
      clock.getDate() + (clock.getHours() < 4 ? 0 : 1),
      4,
    );
    const inStudyDay = Date.parse(lapse.due) < studyDayEnd.getTime();
    assert.equal(
      byToday.dueTodayCount,
      byToday.dueCount - (expected.includes(alpha) ? 1 : 0) + (inStudyDay ? 1 : 0),
      'relearning counted alike in the list and in dueTodayCount, by their own day ends',
    );
    assert.equal(Date.parse(byToday.until ?? ''), dayEnd - 1, 'a date means the end of that local day');
    if (expected.includes(alpha)) assert.equal(byToday.cards.find((c) => c.cardNoteId === alpha)?.state, 'relearning');
    // nextDueAt does not move with ?until=: the next card not due now (the relearning one), as in the plain queue.
    assert.equal(byToday.nextDueAt, lapse.due);
    assert.equal(now.nextDueAt, lapse.due);

    // A date-time far ahead: every card, in the order added (not review order: new cards were added first here).
    const all = await t.client.call('GET /decks/{id}/due', {
      params: { id: deckId },
      query: { until: '2099-01-01T00:00:00Z' },
    });
    assert.deepEqual(
      all.cards.map((c) => c.cardNoteId),
      cardIds,
    );
    assert.deepEqual(
      all.cards.map((c) => c.answer.title),
      ['Delta', 'Alpha', 'Charlie', 'Bravo'],
    );
    assert.equal(all.until, '2099-01-01T00:00:00.000Z');
    assert.equal(all.nextDueAt, lapse.due, 'the same nextDueAt however far ahead the plan looks');
    // A moment in the past: nothing was due yet.
    const past = await t.client.call('GET /decks/{id}/due', {
      params: { id: deckId },
      query: { until: '2000-01-01T00:00:00+02:00' },
    });
    assert.deepEqual([past.count, past.until], [0, '1999-12-31T22:00:00.000Z']);

    const before = storeDigest(t.bridge.services.store);
    for (const bad of [
      'tomorrow',
      '2026-02-30',
      '2026-13-01',
      '2026-12-01T25:00:00Z',
      '2026-12-01T10:00:00',
      '',
      '1'.repeat(41),
    ]) {
      const r = await t.client.raw('GET', `/decks/${deckId}/due`, { query: { until: bad } });
      assert.equal(r.status, 422, `until=${bad}`);
      const err = r.json<any>().error;
      assert.equal(err.code, 'INVALID_INPUT', `until=${bad}`);
      assert.equal(err.details.issues[0].path, 'until');
      assert.match(err.message, /until/);
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
