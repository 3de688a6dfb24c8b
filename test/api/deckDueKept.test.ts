import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { cards, newDeck, newSet } from '../helpers/libraryFixtures';
import { DeckReviews } from '../../src/server/domain/decks/deckReviews';

/**
 * GET /decks/{id}/due keeps which cards it picked (domain/decks/dueCache.ts) and reuses them only while they
 * are still true: each answer here must be the one a fresh pick gives after a write, as the clock moves on, and
 * when the clock goes back. The clock is the domain's `now` (the route's is the machine's).
 */
describe('GET /decks/{id}/due: the kept pick never answers stale', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const MIN = 60_000;
  const due = (deckId: string) => t.client.call('GET /decks/{id}/due', { params: { id: deckId } });
  const dueAt = (deckId: string, now: Date) =>
    new DeckReviews(t.bridge.services.store, t.bridge.services.decks).due(deckId, { now, limit: 200 });
  const grade = (deckId: string, cardNoteId: string, rating: 'good' | 'easy', reviewedAt = new Date()) =>
    t.client.call('POST /decks/{id}/reviews', {
      params: { id: deckId },
      body: { cardNoteId, rating, reviewedAt: reviewedAt.toISOString(), confirm: true },
    });

  it('a grade and a title edit change the next answer', async () => {
    const set = await newSet(t, 'Kept writes');
    const ids = await cards(t, set.topicid, ['One', 'Two', 'Three']);
    const { deckId, cardNoteIds } = await newDeck(t, 'Kept writes deck', ids);
    const first = await due(deckId);
    assert.deepEqual(
      first.cards.map((c) => c.cardNoteId),
      cardNoteIds,
    );
    assert.deepEqual(
      (await due(deckId)).cards.map((c) => c.cardNoteId),
      cardNoteIds,
      'asked again, the same',
    );
    await grade(deckId, cardNoteIds[0], 'good'); // learning now, due in minutes
    const graded = await due(deckId);
    assert.deepEqual(
      graded.cards.map((c) => c.cardNoteId),
      cardNoteIds.slice(1),
    );
    assert.equal(graded.limits.newStudiedToday, 1);
    assert.equal(graded.reviewedToday, 1);
    assert.ok(graded.nextDueAt && graded.nextDueAt > graded.now);

    await t.client.call('POST /notes/{id}/title', {
      params: { id: ids[1] },
      body: { text: 'Two, renamed', expectedPrefix: 'Two', confirm: true },
    });
    const renamed = await due(deckId);
    assert.equal(renamed.cards[0].question.text, 'Two, renamed');
    assert.equal(renamed.cards[0].answer.title, 'Two, renamed');
  });

  it('a card comes due when the clock reaches it, and is gone again when the clock goes back', async () => {
    const set = await newSet(t, 'Kept clock');
    const ids = await cards(t, set.topicid, ['Early', 'Later']);
    const { deckId, cardNoteIds } = await newDeck(t, 'Kept clock deck', ids);
    const now = new Date();
    const learning = await grade(deckId, cardNoteIds[0], 'good', now);
    const comes = Date.parse(learning.due);
    assert.ok(comes > now.getTime(), 'the learning card waits');

    const before = dueAt(deckId, new Date(comes - 1));
    assert.deepEqual(
      before.cards.map((c) => c.cardNoteId),
      [cardNoteIds[1]],
    );
    assert.equal(before.nextDueAt, learning.due);
    const at = dueAt(deckId, new Date(comes));
    assert.deepEqual(
      at.cards.map((c) => c.cardNoteId),
      cardNoteIds,
      'due at its due moment: learning first',
    );
    assert.equal(at.learningCount, 1);
    assert.notEqual(at.nextDueAt, learning.due);
    // Each answer's buttons are reckoned from its own now.
    assert.notEqual(at.cards[1].nextDues.again, before.cards[0].nextDues.again);

    const back = dueAt(deckId, new Date(comes - MIN));
    assert.deepEqual(
      back.cards.map((c) => c.cardNoteId),
      [cardNoteIds[1]],
      'the clock went back: not due',
    );
    assert.equal(back.learningCount, 0);
  });

  it('the next study day starts with nothing studied, though no card comes due between', async () => {
    const set = await newSet(t, 'Kept day');
    const ids = await cards(t, set.topicid, ['Only']);
    const { deckId, cardNoteIds } = await newDeck(t, 'Kept day deck', ids);
    const now = new Date();
    const easy = await grade(deckId, cardNoteIds[0], 'easy', now);
    const today = dueAt(deckId, new Date(now.getTime() + MIN));
    assert.equal(today.reviewedToday, 1);
    assert.equal(today.limits.newStudiedToday, 1);
    const tomorrow = new Date(Date.parse(today.dayStartsAt) + 24 * 60 * MIN + MIN);
    assert.ok(Date.parse(easy.due) > tomorrow.getTime(), 'the card waits past the next day start');
    const next = dueAt(deckId, tomorrow);
    assert.equal(next.reviewedToday, 0);
    assert.equal(next.limits.newStudiedToday, 0);
    assert.notEqual(next.dayStartsAt, today.dayStartsAt);
    assert.equal(next.nextDueAt, easy.due);
  });
});
