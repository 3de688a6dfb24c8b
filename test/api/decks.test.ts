import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

describe('GET/POST /decks', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('creates a deck (isDeck:true, no cards) and lists it; decks and study sets never mix', async () => {
    const deck = await t.client.createDeck(' Exam week ');
    assert.equal(deck.isDeck, true);
    assert.equal(deck.created, true);
    assert.equal(deck.title, 'Exam week');
    assert.equal(deck.cardCount, 0);
    assert.match(deck.deckId, /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    const set = await t.client.createStudySet('Exam notes');
    assert.deepEqual(
      (await t.client.listDecks()).map((d) => d.deckId),
      [deck.deckId],
    );
    assert.deepEqual(
      (await t.client.listStudySets()).map((s) => s.topicid),
      [set.topicid],
    );
    assert.deepEqual(
      (await t.client.listDecks('EXAM')).map((d) => d.title),
      ['Exam week'],
    );
    assert.deepEqual(await t.client.listDecks('nothing'), []);
  });

  it('a deck id sent to a study-set route → 422 IS_A_DECK, nothing changed', async () => {
    const deck = await t.client.createDeck('Flashcards');
    const before = storeDigest(t.bridge.services.store);
    for (const [method, path, body] of [
      ['GET', `/study-sets/${deck.deckId}/documents`, undefined],
      ['POST', `/study-sets/${deck.deckId}/documents`, { bookmd5: 'a'.repeat(32), confirm: true }],
    ] as const) {
      const res = await t.client.raw(method, path, { body });
      assert.equal(res.status, 422, path);
      assert.equal(res.json<any>().error.code, 'IS_A_DECK');
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('a study set id is not a deck', () => {
    const set = t.bridge.services.studySets.list()[0];
    assert.throws(
      () => t.bridge.services.decks.get(set.topicid),
      (e: any) => e.code === 'NOT_A_DECK' && e.status === 422,
    );
  });

  for (const [label, body] of [
    ['missing title', { confirm: true }],
    ['blank title', { title: ' ', confirm: true }],
    ['title too long', { title: 'x'.repeat(201), confirm: true }],
  ] as const) {
    it(`bad input (${label}) → 422 INVALID_INPUT, nothing stored`, async () => {
      const before = storeDigest(t.bridge.services.store);
      const res = await t.client.raw('POST', '/decks', { body });
      assert.equal(res.status, 422);
      assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  }
});
