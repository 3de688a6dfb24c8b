import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { cards, newDeck, newSet } from '../helpers/libraryFixtures';
import { dueQueue } from '../../src/server/domain/decks/deckDue';
import type { Store } from '../../src/server/ground/store/store';

/**
 * GET /decks/{id}/due sends each card as JSON made once per kept card (domain/decks/dueWire.ts, a RawJson in the
 * answer writer http/jsonBody.ts): its bytes must be JSON.stringify of the answer a fresh pick gives at the
 * answer's `now`, for a short list (left to koa) and a long one (written in pieces), kept, remade after a grade,
 * and after an edit.
 */
describe('GET /decks/{id}/due: the bytes sent are those of the answer', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('40 cards at limits 5 and 200, asked twice, after a grade and after an edit', async () => {
    const { store, decks } = t.bridge.services;
    const set = await newSet(t, 'Wire');
    const ids = await cards(
      t,
      set.topicid,
      Array.from({ length: 40 }, (_, i) => `Wire card ${i} "quoted" \\ ü`),
    );
    const { deckId, cardNoteIds } = await newDeck(t, 'Wire deck', ids);
    // All 40 due (the default shows 20 new a day): a list longer than 32 is written in pieces.
    const preset = await t.client.call('POST /deck-presets', {
      body: { name: 'Wire', options: { newPerDay: 100 }, confirm: true },
    });
    await t.client.call('POST /decks/{id}/options', {
      params: { id: deckId },
      body: { presetId: preset.presetId, confirm: true },
    });
    const check = async (what: string) => {
      for (const limit of [5, 200]) {
        const raw = await t.client.raw('GET', `/decks/${deckId}/due`, { query: { limit: String(limit) } });
        assert.equal(raw.status, 200);
        const sent = raw.json<{ bridgeApiVersion: unknown; now: string; cards: unknown[] }>();
        assert.equal(sent.cards.length, Math.min(limit, 40 - grades), what);
        const fresh = dueQueue(Object.create(store) as Store, decks, deckId, { now: new Date(sent.now), limit });
        assert.equal(
          raw.text(),
          JSON.stringify({ bridgeApiVersion: sent.bridgeApiVersion, ...fresh }),
          `${what}, limit ${limit}`,
        );
        assert.equal(raw.headers.get('content-length'), String(raw.bytes.length));
      }
    };
    let grades = 0;
    await check('first');
    await check('kept');
    await t.client.call('POST /decks/{id}/reviews', {
      params: { id: deckId },
      body: { cardNoteId: cardNoteIds[3], rating: 'again', confirm: true },
    });
    grades++;
    await check('after a grade');
    await t.client.call('POST /notes/{id}/text', {
      params: { id: ids[5] },
      body: { text: 'A body with <b>html</b> & "quotes"', expectedPrefix: '', confirm: true },
    });
    await check('after an edit');
  });
});
