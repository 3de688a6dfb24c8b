import assert from 'node:assert/strict';
import type { BridgeClient } from '../../src/client/bridgeClient';
import type { RouteAnswer } from '../../src/client/routeCalls';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card, newDeck, newSet } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNKNOWN = '11111111-2222-4333-8444-555555555555';

/** A set with `n` cards and a deck reading them, through the routes. */
async function seed(client: BridgeClient, n: number, title: string, sources?: string[]) {
  const ids = sources ?? [];
  if (!sources) {
    const set = await newSet(client, `${title} set`);
    for (let i = 0; i < n; i++)
      ids.push(await card(client, set.topicid, { title: `${title} ${i}`, text: `answer ${i}` }));
  }
  const { deckId, cardNoteIds } = await newDeck(client, title, ids);
  return { deckId, sourceIds: ids, cardIds: cardNoteIds };
}

describe('card management: suspend, unsuspend, bury, flag, forget, set due date; leeches and buried siblings', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  /** Every card action answers alike (the same declared response). */
  type ActionAnswer = RouteAnswer<'POST /decks/{id}/cards/suspend'>;
  const act = (deckId: string, action: string, body: Record<string, unknown>) =>
    t.client.request<ActionAnswer>('POST', `/decks/${deckId}/cards/${action}`, { body: { ...body, confirm: true } });
  const due = (deckId: string) => t.client.call('GET /decks/{id}/due', { params: { id: deckId } });
  const dueIds = async (deckId: string) => (await due(deckId)).cards.map((c) => c.cardNoteId);
  const cardOf = async (deckId: string, id: string) => {
    const card = (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId } })).cards.find(
      (c) => c.cardNoteId === id,
    );
    assert.ok(card, `card ${id} in the deck`);
    return card;
  };
  const grade = (deckId: string, cardNoteId: string, rating: 'again' | 'hard' | 'good' | 'easy', reviewedAt?: Date) =>
    t.client.call('POST /decks/{id}/reviews', {
      params: { id: deckId },
      body: { cardNoteId, rating, confirm: true, ...(reviewedAt ? { reviewedAt: reviewedAt.toISOString() } : {}) },
    });
  const deckDueCount = async (deckId: string) =>
    (await t.client.call('GET /decks')).decks.find((d) => d.deckId === deckId)?.dueCount;

  it('suspend takes a card out of every due list and the deck count; unsuspend brings it back with its schedule', async () => {
    const s = await seed(t.client, 3, 'Suspend');
    await grade(s.deckId, s.cardIds[1], 'easy', new Date(Date.now() - 30 * DAY)); // a review card, due
    const before = await cardOf(s.deckId, s.cardIds[1]);
    assert.equal(await deckDueCount(s.deckId), 3);

    const res = await act(s.deckId, 'suspend', { cardNoteIds: [s.cardIds[0], s.cardIds[1]] });
    assert.equal(res.persisted, true);
    assert.deepEqual(
      res.cards.map((c) => c.queue),
      ['suspended', 'suspended'],
    );
    assert.deepEqual(await dueIds(s.deckId), [s.cardIds[2]]);
    assert.equal((await due(s.deckId)).dueCount, 1, 'the status bar count');
    assert.equal(await deckDueCount(s.deckId), 1);
    const listed = await t.client.call('GET /decks/{id}/cards', { params: { id: s.deckId }, query: { due: '1' } });
    assert.deepEqual(
      listed.cards.map((c) => c.cardNoteId),
      [s.cardIds[2]],
    );
    assert.equal((await cardOf(s.deckId, s.cardIds[1])).suspended, true);

    await act(s.deckId, 'unsuspend', { cardNoteIds: [s.cardIds[0], s.cardIds[1]] });
    const after = await cardOf(s.deckId, s.cardIds[1]);
    assert.equal(after.suspended, false);
    for (const k of ['due', 'state', 'reps', 'lapses', 'stability', 'difficulty', 'lastReviewAt'] as const)
      assert.deepEqual(after[k], before[k], k);
    assert.equal((await dueIds(s.deckId)).length, 3);
  });

  it("bury lasts until the deck's next study day starts (its dayStartHour)", async () => {
    const s = await seed(t.client, 2, 'Bury');
    const preset = await t.client.call('POST /deck-presets', {
      body: { name: 'Starts at 6', options: { dayStartHour: 6 }, confirm: true },
    });
    await t.client.request('POST', `/decks/${s.deckId}/options`, {
      body: { presetId: preset.presetId, confirm: true },
    });
    const res = await act(s.deckId, 'bury', { cardNoteIds: [s.cardIds[0]] });
    const until = new Date(res.cards[0].buriedUntil ?? '');
    const now = new Date();
    assert.equal(until.getHours(), 6);
    assert.equal(until.getMinutes(), 0);
    assert.ok(until.getTime() > now.getTime() && until.getTime() <= now.getTime() + 25 * HOUR, until.toISOString());
    const d = await due(s.deckId);
    assert.deepEqual(
      d.cards.map((c) => c.cardNoteId),
      [s.cardIds[1]],
    );
    assert.equal(new Date(d.dayStartsAt).getTime() + DAY, until.getTime(), "the study day's end");
    assert.equal((await cardOf(s.deckId, s.cardIds[0])).buriedUntil, res.cards[0].buriedUntil);
  });

  it('flag 0..7 shows on the card; forget sends it back to new, keeping or deleting its log', async () => {
    const s = await seed(t.client, 2, 'Flag forget');
    const flagged = await act(s.deckId, 'flag', { cardNoteIds: [s.cardIds[0]], flag: 7 });
    assert.equal(flagged.cards[0].flag, 7);
    assert.equal((await due(s.deckId)).cards.find((c) => c.cardNoteId === s.cardIds[0])?.flag, 7);
    assert.equal((await cardOf(s.deckId, s.cardIds[0])).flag, 7);

    for (const id of s.cardIds) await grade(s.deckId, id, 'easy', new Date(Date.now() - 2 * DAY));
    const log = async (id: string) =>
      (await t.client.call('GET /decks/{id}/reviews', { params: { id: s.deckId }, query: { cardNoteId: id } })).count;
    await act(s.deckId, 'forget', { cardNoteIds: [s.cardIds[0]] });
    const kept = await cardOf(s.deckId, s.cardIds[0]);
    assert.equal(kept.state, 'new');
    assert.equal(kept.reps, 0);
    assert.equal(await log(s.cardIds[0]), 1, 'keepLog defaults to true');
    await act(s.deckId, 'forget', { cardNoteIds: [s.cardIds[1]], keepLog: false });
    assert.equal((await cardOf(s.deckId, s.cardIds[1])).state, 'new');
    assert.equal(await log(s.cardIds[1]), 0);
  });

  it('set due date: "0" is today, "3-7" lands in the range, "10!" on a review card', async () => {
    const s = await seed(t.client, 3, 'Set due');
    const d = await due(s.deckId);
    const dayStart = new Date(d.dayStartsAt);
    const dayN = (n: number) =>
      new Date(dayStart.getFullYear(), dayStart.getMonth(), dayStart.getDate() + n, dayStart.getHours()).toISOString();
    const ranged = await act(s.deckId, 'set-due', { cardNoteIds: [s.cardIds[0]], days: '3-7' });
    assert.ok(ranged.cards[0].due >= dayN(3) && ranged.cards[0].due <= dayN(7), ranged.cards[0].due);
    assert.ok(!(await dueIds(s.deckId)).includes(s.cardIds[0]));
    const today = await act(s.deckId, 'set-due', { cardNoteIds: [s.cardIds[0]], days: '0' });
    assert.equal(today.cards[0].due, dayN(0));
    assert.ok((await dueIds(s.deckId)).includes(s.cardIds[0]));
    await grade(s.deckId, s.cardIds[1], 'easy', new Date(Date.now() - 30 * DAY));
    const bang = await act(s.deckId, 'set-due', { cardNoteIds: [s.cardIds[1]], days: '10!' });
    assert.equal(bang.cards[0].due, dayN(10));
  });

  it('leech: the lapse reaching leechThreshold marks the card and, with leechAction suspend, suspends it', async () => {
    const s = await seed(t.client, 1, 'Leech');
    const preset = await t.client.call('POST /deck-presets', {
      body: { name: 'Strict leeches', options: { leechThreshold: 1, leechAction: 'suspend' }, confirm: true },
    });
    await t.client.request('POST', `/decks/${s.deckId}/options`, {
      body: { presetId: preset.presetId, confirm: true },
    });
    await grade(s.deckId, s.cardIds[0], 'easy', new Date(Date.now() - 30 * DAY));
    const lapse = await grade(s.deckId, s.cardIds[0], 'again');
    assert.equal(lapse.lapses, 1);
    assert.equal(lapse.leech, true);
    assert.equal(lapse.suspended, true);
    assert.deepEqual(await dueIds(s.deckId), []);
    const c = await cardOf(s.deckId, s.cardIds[0]);
    assert.equal(c.leech, true);
    assert.equal(c.suspended, true);
  });

  it('bury siblings: grading a card buries the other review cards of the same source (another deck)', async () => {
    const a = await seed(t.client, 1, 'Siblings A');
    const b = await seed(t.client, 0, 'Siblings B', a.sourceIds);
    const preset = await t.client.call('POST /deck-presets', {
      body: { name: 'Bury new', options: { buryNewSiblings: true }, confirm: true },
    });
    await t.client.request('POST', `/decks/${a.deckId}/options`, {
      body: { presetId: preset.presetId, confirm: true },
    });
    assert.deepEqual(await dueIds(b.deckId), b.cardIds);
    await grade(a.deckId, a.cardIds[0], 'good');
    assert.deepEqual(await dueIds(b.deckId), []);
    assert.ok((await cardOf(b.deckId, b.cardIds[0])).buriedUntil);
  });

  describe('refusals change nothing', () => {
    let s: { deckId: string; cardIds: string[] };
    let other: { deckId: string; cardIds: string[] };
    before(async () => {
      s = await seed(t.client, 1, 'Refuse');
      other = await seed(t.client, 1, 'Other');
    });
    const digest = () => storeDigest(t.bridge.services.store);
    const refused = async (action: string, body: Record<string, unknown>, status: number, code: string) => {
      const before = digest();
      const res = await t.client.raw('POST', `/decks/${s.deckId}/cards/${action}`, {
        body: { ...body, confirm: true },
      });
      assert.equal(res.status, status, res.text());
      assert.equal(res.json<any>().error.code, code);
      assert.equal(digest(), before);
      return res.json<any>().error;
    };

    it('a card of another deck or no card → 404 CARD_NOT_FOUND naming it, even beside a good one', async () => {
      const err = await refused('suspend', { cardNoteIds: [s.cardIds[0], other.cardIds[0]] }, 404, 'CARD_NOT_FOUND');
      assert.deepEqual(err.details.missing, [other.cardIds[0]]);
      await refused('bury', { cardNoteIds: [UNKNOWN] }, 404, 'CARD_NOT_FOUND');
    });

    it('bad input → 422 INVALID_INPUT: flag 8, days "7-3" or "soon", no cards', async () => {
      await refused('flag', { cardNoteIds: s.cardIds, flag: 8 }, 422, 'INVALID_INPUT');
      await refused('set-due', { cardNoteIds: s.cardIds, days: '7-3' }, 422, 'INVALID_INPUT');
      const err = await refused('set-due', { cardNoteIds: s.cardIds, days: 'soon' }, 422, 'INVALID_INPUT');
      assert.match(err.message, /Anki's syntax/);
      await refused('suspend', { cardNoteIds: [] }, 422, 'INVALID_INPUT');
    });
  });
});
