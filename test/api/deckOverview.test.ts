import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { cards, newDeck, newSet } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

/** A deck of five cards in every state: new, learning, review, a suspended one due soonest, a buried one. */
async function mixedDeck(t: TestBridge) {
  const set = await newSet(t, 'Overview');
  const ids = await cards(t, set.topicid, ['New', 'Learning', 'Review', 'Suspended', 'Buried']);
  const { deckId, cardNoteIds } = await newDeck(t, 'Overview deck', ids);
  const [fresh, learning, review, suspended, buried] = cardNoteIds;
  const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
  const grade = (cardNoteId: string, rating: 'good', reviewedAt: string) =>
    t.client.call('POST /decks/{id}/reviews', {
      params: { id: deckId },
      body: { cardNoteId, rating, reviewedAt, confirm: true },
    });
  const learnt = await grade(learning, 'good', at(0));
  assert.equal(learnt.state, 'learning');
  await grade(review, 'good', at(3 * 3600_000));
  const reviewed = await grade(review, 'good', at(2 * 3600_000));
  assert.equal(reviewed.state, 'review');
  // Graded minutes before the learning card: it comes due sooner, but it is suspended, so it never does.
  const early = await grade(suspended, 'good', at(5 * 60_000));
  assert.ok(early.due < learnt.due && early.due > new Date().toISOString(), 'the suspended card would come due first');
  const act = (name: 'suspend' | 'bury', cardNoteIds: string[]) =>
    t.client.call(`POST /decks/{id}/cards/${name}`, { params: { id: deckId }, body: { cardNoteIds, confirm: true } });
  await act('suspend', [suspended]);
  await act('bury', [buried]);
  const buriedUntil = (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId } })).cards.find(
    (c) => c.cardNoteId === buried,
  )?.buriedUntil;
  return { deckId, fresh, learnt, reviewed, buriedUntil: buriedUntil ?? undefined };
}

describe('GET /decks/{id}, and nextDueAt the same in every view', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it("answers the deck's size, cards and due cards by state, dueCount and nextDueAt", async () => {
    const { deckId, learnt, buriedUntil } = await mixedDeck(t);
    const d = await t.client.call('GET /decks/{id}', { params: { id: deckId } });
    assert.equal(d.deckId, deckId);
    assert.equal(d.isDeck, true);
    assert.equal(d.title, 'Overview deck');
    assert.equal(d.cardCount, 5);
    assert.deepEqual(d.counts, { new: 1, learning: 1, review: 1, relearning: 0, suspended: 1, buried: 1, total: 5 });
    // Due now: only the new card (the learning card waits minutes, the review card days; suspended and buried are out).
    assert.deepEqual(d.due, { new: 1, learning: 0, review: 0, relearning: 0, total: 1 });
    assert.equal(d.dueCount, d.due.total);
    const studyNext = [learnt.due, buriedUntil ?? learnt.due].sort()[0];
    assert.equal(d.nextDueAt, studyNext, 'the learning card (or the buried one, if its day ends first)');
    // The deck list answers the same summary.
    const listed = (await t.client.call('GET /decks')).decks.find((x) => x.deckId === deckId);
    assert.ok(listed, 'the deck is listed');
    for (const k of ['cardCount', 'dueCount', 'newCount', 'nextDueAt'] as const) assert.equal(listed[k], d[k], k);
  });

  it('nextDueAt: one value in the list, the deck, /due and /due?until= (three days ahead or far ahead); suspended cards never count', async () => {
    const { deckId, learnt, buriedUntil } = await mixedDeck(t);
    const one = [learnt.due, buriedUntil ?? learnt.due].sort()[0];
    const listed = (await t.client.call('GET /decks')).decks.find((x) => x.deckId === deckId);
    assert.ok(listed, 'the deck is listed');
    const views: Record<string, string | null> = {
      list: listed.nextDueAt,
      due: (await t.client.call('GET /decks/{id}/due', { params: { id: deckId } })).nextDueAt,
      threeDays: (
        await t.client.call('GET /decks/{id}/due', {
          params: { id: deckId },
          query: { until: new Date(Date.now() + 3 * 86_400_000).toISOString() },
        })
      ).nextDueAt,
      farAhead: (
        await t.client.call('GET /decks/{id}/due', { params: { id: deckId }, query: { until: '2099-01-01T00:00:00Z' } })
      ).nextDueAt,
    };
    for (const [view, value] of Object.entries(views)) assert.equal(value, one, view);
  });

  it('an unknown deck is 404, a study set 422 NOT_A_DECK, a malformed id 422; nothing changes', async () => {
    const set = await t.client.createStudySet('Not a deck');
    const before = storeDigest(t.bridge.services.store);
    const unknown = await t.client.raw('GET', '/decks/00000000-0000-4000-8000-00000000beef');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json<any>().error.code, 'TOPIC_NOT_FOUND');
    const notDeck = await t.client.raw('GET', `/decks/${set.topicid}`);
    assert.equal(notDeck.status, 422);
    assert.equal(notDeck.json<any>().error.code, 'NOT_A_DECK');
    assert.equal((await t.client.raw('GET', '/decks/not-a-uuid')).status, 422);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
