import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { cards, newDeck, newSet } from '../helpers/libraryFixtures';
import { dueQueue } from '../../src/server/domain/decks/deckDue';
import type { Store } from '../../src/server/ground/store/store';

/**
 * After a write that changed only schedules (a grade, a suspend, a bury, a flag), GET /decks/{id}/due remakes its
 * kept pick reusing each card whose row is unchanged (domain/decks/dueCache.ts); after any other write it remakes
 * it whole. Each answer here, after random writes in two decks sharing their source cards, must equal a pick made
 * from nothing at the same moment.
 */
describe('GET /decks/{id}/due: a pick remade after a write equals a fresh one', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  function rng(seed: number) {
    let s = seed >>> 0;
    return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  }

  it('random grades, suspends, buries, flags, set-dues, text edits, a set hidden and option changes in two decks', async function () {
    this.timeout(120_000);
    const { store, decks } = t.bridge.services;
    const set = await newSet(t, 'Reuse');
    const ids = await cards(
      t,
      set.topicid,
      Array.from({ length: 24 }, (_, i) => `Card ${i}`),
    );
    const a = await newDeck(t, 'Reuse A', ids);
    // B: siblings of A's first 12, and cards of a set whose row alone is written below (hidden and shown again).
    const other = await newSet(t, 'Reuse other');
    const otherIds = await cards(t, other.topicid, ['Other 1', 'Other 2', 'Other 3']);
    const b = await newDeck(t, 'Reuse B', [...ids.slice(0, 12), ...otherIds]);
    const preset = await t.client.call('POST /deck-presets', {
      body: { name: 'Reuse few new', options: { newPerDay: 7, buryNewSiblings: true }, confirm: true },
    });
    const both = [a, b];
    const rand = rng(34);
    const pickOf = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
    // A fresh pick: a store object of its own has no kept picks (they are kept per store object).
    const fresh = (deckId: string, now: Date, limit: number) =>
      dueQueue(Object.create(store) as Store, decks, deckId, { now, limit });
    const compare = (step: string) => {
      for (const deck of both)
        for (const limit of [5, 200]) {
          const now = new Date();
          const kept = dueQueue(store, decks, deck.deckId, { now, limit });
          assert.deepEqual(kept, fresh(deck.deckId, now, limit), `${step}: deck ${deck.deckId}, limit ${limit}`);
        }
    };
    const action = (deckId: string, name: 'suspend' | 'unsuspend' | 'bury' | 'flag', ids: string[]) =>
      t.client.call(`POST /decks/{id}/cards/${name}` as 'POST /decks/{id}/cards/suspend', {
        params: { id: deckId },
        body: { cardNoteIds: ids, ...(name === 'flag' ? { flag: 1 + Math.floor(rand() * 7) } : {}), confirm: true },
      });
    const bodies = new Map<string, string>();
    compare('first');
    for (let step = 0; step < 60; step++) {
      const deck = pickOf(both);
      const shown = dueQueue(store, decks, deck.deckId, { limit: 200 }).cards;
      const roll = rand();
      let what: string;
      if (roll < 0.5 && shown.length) {
        const rating = pickOf(['again', 'hard', 'good', 'easy'] as const);
        const card = pickOf(shown).cardNoteId;
        await t.client.call('POST /decks/{id}/reviews', {
          params: { id: deck.deckId },
          body: { cardNoteId: card, rating, confirm: true },
        });
        what = `grade ${rating}`;
      } else if (roll < 0.6) {
        const name = pickOf(['suspend', 'unsuspend', 'bury'] as const);
        await action(deck.deckId, name, [pickOf(deck.cardNoteIds), pickOf(deck.cardNoteIds)]);
        what = name;
      } else if (roll < 0.75 && shown.length) {
        // Cards that stay shown with a changed row: a flag, or due again today.
        const card = pickOf(shown).cardNoteId;
        if (rand() < 0.5) await action(deck.deckId, 'flag', [card]);
        else
          await t.client.call('POST /decks/{id}/cards/set-due', {
            params: { id: deck.deckId },
            body: { cardNoteIds: [card], days: '0!', confirm: true },
          });
        what = 'flag or set-due';
      } else if (roll < 0.85) {
        const id = pickOf(ids.slice(0, 14));
        await t.client.call('POST /notes/{id}/text', {
          params: { id },
          body: { text: `Body ${step}`, expectedPrefix: bodies.get(id) ?? '', confirm: true },
        });
        bodies.set(id, `Body ${step}`);
        what = 'text edit';
      } else if (roll < 0.95) {
        // No route writes a set's row alone; what a restore or a sync could: its cards are no longer shown, then again.
        await store.write((tx) => tx.run('UPDATE topics SET hidden = 1 - hidden WHERE topicid = ?', [other.topicid]));
        what = 'other set hidden or shown';
      } else {
        await t.client.call('POST /decks/{id}/options', {
          params: { id: deck.deckId },
          body: { presetId: rand() < 0.5 ? preset.presetId : 'default', confirm: true },
        });
        what = 'options';
      }
      compare(`step ${step} (${what})`);
    }
  });
});
