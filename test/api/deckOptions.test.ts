import assert from 'node:assert/strict';
import type * as TsFsrs from 'ts-fsrs' with { 'resolution-mode': 'import' };
import type { BridgeClient } from '../../src/client/bridgeClient';
import { buildApkg, crtDaysAgo } from '../helpers/ankiPackageBuilder';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card as newCard, newDeck, newSet } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

const { createEmptyCard, fsrs, generatorParameters, Rating } = require('ts-fsrs') as typeof TsFsrs;

const HOUR = 3_600_000;

/** A set with `n` cards and a deck reading them, through the routes. */
async function seed(client: BridgeClient, n: number, title = 'Options deck') {
  const set = await newSet(client, `${title} set`);
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(await newCard(client, set.topicid, { title: `${title} card ${i}`, text: `answer ${i}` }));
  const { deckId, cardNoteIds } = await newDeck(client, title, ids);
  return { deckId, cardIds: cardNoteIds };
}

describe('deck options: presets, daily limits, study day, FSRS options', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const due = (deckId: string) => t.client.call('GET /decks/{id}/due', { params: { id: deckId } });
  const grade = (deckId: string, cardNoteId: string, rating: 'again' | 'hard' | 'good' | 'easy', reviewedAt?: Date) =>
    t.client.call('POST /decks/{id}/reviews', {
      params: { id: deckId },
      body: { cardNoteId, rating, confirm: true, ...(reviewedAt ? { reviewedAt: reviewedAt.toISOString() } : {}) },
    });
  const savePreset = (body: Record<string, unknown>) =>
    t.client.call('POST /deck-presets', { body: { ...body, confirm: true } });
  const assign = (deckId: string, presetId: string) =>
    t.client.call('POST /decks/{id}/options', { params: { id: deckId }, body: { presetId, confirm: true } });

  it('an imported deck of 20,000 new cards shows 20 new today; 20 graded today leave none; 20 graded yesterday leave 20', async function () {
    this.timeout(180_000); // importing 20,000 notes takes a while on a busy machine
    // A bridge of its own for this test: digests of a 20,000-card store would slow every later test.
    const main = t;
    t = await startBridge();
    try {
      await twentyThousand();
    } finally {
      await t.stop();
      t = main;
    }
  });

  async function twentyThousand() {
    const notes = Array.from({ length: 20_000 }, (_, i) => ({
      guid: `bulk${i}`,
      model: 'Basic',
      fields: [`front ${i}`, `back ${i}`],
    }));
    const bytes = await buildApkg({
      crt: crtDaysAgo(10),
      models: [{ name: 'Basic', fields: ['Front', 'Back'] }],
      decks: ['Bulk'],
      notes,
    });
    const imported = await t.client.raw('POST', '/decks/import', {
      bytes,
      query: { filename: 'Bulk.apkg', confirm: 1 },
    });
    assert.equal(imported.status, 200, imported.text().slice(0, 300));
    const deckId = imported.json<any>().deckId as string;

    const first = await due(deckId);
    assert.equal(first.newCount, 20);
    assert.equal(first.count, 20);
    assert.equal(first.dueCount, 20);
    assert.deepEqual(first.heldBack, { newPerDay: 19_980, reviewsPerDay: 0 });
    // The package's own options group (Anki's Default: 20 new a day) came in as the deck's preset.
    assert.equal(first.limits.presetId, imported.json<any>().presetId);
    assert.notEqual(first.limits.presetId, 'default');
    assert.equal(first.limits.newPerDay, 20);
    assert.equal(first.limits.newStudiedToday, 0);
    assert.ok(first.cards.every((c) => c.state === 'new'));

    // Twenty graded in yesterday's study day do not count against today.
    const yesterday = new Date(Date.now() - 26 * HOUR);
    for (const c of first.cards.slice(0, 20)) await grade(deckId, c.cardNoteId, 'easy', yesterday);
    const afterYesterday = await due(deckId);
    assert.equal(afterYesterday.limits.newStudiedToday, 0);
    assert.equal(afterYesterday.newCount, 20);
    assert.deepEqual(afterYesterday.heldBack, { newPerDay: 19_960, reviewsPerDay: 0 });

    const shownNow = afterYesterday.cards.filter((c) => c.state === 'new');
    for (const c of shownNow) await grade(deckId, c.cardNoteId, 'good');
    const done = await due(deckId);
    assert.equal(done.newCount, 0);
    assert.equal(done.limits.newStudiedToday, 20);
    assert.equal(done.heldBack.newPerDay, 19_960);
    assert.ok(
      done.cards.every((c) => c.state !== 'new'),
      'no new card is shown once the day has had its 20',
    );
    // The status bar reads dueCount: the limits hold there too.
    assert.equal(done.dueCount, done.learningCount + done.reviewCount);
  }

  it('reviews stop at reviewsPerDay (new cards count against it too); learning cards are never held back', async () => {
    const s = await seed(t.client, 8, 'Review limit');
    const monthAgo = new Date(Date.now() - 30 * 24 * HOUR);
    for (const id of s.cardIds.slice(0, 6)) await grade(s.deckId, id, 'easy', monthAgo); // review cards, due by now
    await grade(s.deckId, s.cardIds[6], 'again', new Date(Date.now() - 26 * HOUR)); // learning (introduced yesterday), due
    const preset = await savePreset({ name: 'Three reviews', options: { reviewsPerDay: 3 } });
    assert.equal(preset.persisted, true);
    assert.equal(preset.created, true);
    assert.equal((await assign(s.deckId, preset.presetId)).presetId, preset.presetId);

    const d = await due(s.deckId);
    assert.equal(d.learningCount, 1);
    assert.equal(d.reviewCount, 3);
    assert.equal(d.newCount, 0);
    assert.deepEqual(d.heldBack, { newPerDay: 0, reviewsPerDay: 3 + 1 }, '3 reviews and the new card');
    assert.deepEqual(
      d.cards.map((c) => c.state),
      ['learning', 'review', 'review', 'review'],
    );

    await savePreset({ presetId: preset.presetId, options: { reviewsPerDay: 0 } });
    const none = await due(s.deckId);
    assert.equal(none.reviewCount, 0);
    assert.equal(none.learningCount, 1, 'learning goes on with a review limit of 0');
    assert.equal(none.dueCount, 1);
  });

  it("the study day starts at dayStartHour: a review before it is yesterday's", async () => {
    const s = await seed(t.client, 3, 'Day start');
    const now = new Date();
    const hourStart = new Date(now.getFullYear(), now.getMonth(), now.getDate(), now.getHours());
    const preset = await savePreset({ name: 'Starts this hour', options: { dayStartHour: now.getHours() } });
    await assign(s.deckId, preset.presetId);
    await grade(s.deckId, s.cardIds[0], 'easy', new Date(hourStart.getTime() - 60_000));
    await grade(s.deckId, s.cardIds[1], 'easy', new Date(Math.min(Date.now(), hourStart.getTime() + 1000)));
    const d = await due(s.deckId);
    assert.equal(d.dayStartsAt, hourStart.toISOString());
    assert.equal(d.limits.newStudiedToday, 1);
    assert.equal(d.reviewedToday, 1);

    await savePreset({ presetId: preset.presetId, options: { dayStartHour: (now.getHours() + 1) % 24 } });
    const later = await due(s.deckId);
    assert.equal(later.limits.newStudiedToday, 2, 'a day starting an hour later holds both reviews');
    assert.ok(later.dayStartsAt < hourStart.toISOString());
  });

  it('desired retention, maximum interval and learning steps go to FSRS', async () => {
    const s = await seed(t.client, 2, 'FSRS options');
    const preset = await savePreset({
      name: 'Short and sure',
      options: { desiredRetention: 0.8, maximumInterval: 2, learningSteps: ['30m', '2h'] },
    });
    await assign(s.deckId, preset.presetId);
    const d = await due(s.deckId);
    const card = d.cards.find((c) => c.cardNoteId === s.cardIds[0]);
    assert.ok(card);
    const scheduler = fsrs(
      generatorParameters({
        request_retention: 0.8,
        maximum_interval: 2,
        learning_steps: ['30m', '2h'],
        enable_fuzz: false,
      }),
    );
    const at = new Date(d.now);
    const expected = scheduler.repeat({ ...createEmptyCard(new Date(card.due)), due: new Date(card.due) }, at);
    assert.equal(card.nextIntervals.again, '30m');
    assert.equal(card.nextDues.good, expected[Rating.Good].card.due.toISOString());
    // GET /decks/{id}/cards words the intervals with the deck's options too (the defaults': again 1m, easy 8d).
    const listed = async (id: string) =>
      (await t.client.call('GET /decks/{id}/cards', { params: { id: s.deckId } })).cards.find(
        (c) => c.cardNoteId === id,
      );
    assert.deepEqual((await listed(s.cardIds[0]))?.nextIntervals, card.nextIntervals);
    assert.equal(card.nextIntervals.easy, '2d');
    const easy = await grade(s.deckId, s.cardIds[0], 'easy');
    assert.equal(easy.scheduledDays, 2, 'easy on a new card is capped at maximumInterval');

    // Desired retention sets the first review interval as ts-fsrs computes it (no steps: straight to review).
    await savePreset({ presetId: preset.presetId, options: { maximumInterval: 36500, learningSteps: [] } });
    const monthAgo = new Date(Date.now() - 30 * 24 * HOUR);
    const r = await grade(s.deckId, s.cardIds[1], 'good', monthAgo);
    const intervalAt = (request_retention: number) =>
      fsrs(generatorParameters({ request_retention, learning_steps: [], enable_fuzz: false })).next(
        createEmptyCard(monthAgo),
        monthAgo,
        Rating.Good,
      ).card.scheduled_days;
    assert.equal(r.state, 'review');
    assert.equal(r.scheduledDays, intervalAt(0.8));
    assert.ok(intervalAt(0.8) > intervalAt(0.9), 'a lower desired retention gives a longer interval');
    // A review card's intervals in GET cards are the ones the due queue shows (desired retention 0.8).
    const planned = (
      await t.client.call('GET /decks/{id}/due', { params: { id: s.deckId }, query: { until: '2100-01-01' } })
    ).cards.find((c) => c.cardNoteId === s.cardIds[1]);
    assert.ok(planned);
    assert.equal(planned.state, 'review');
    assert.deepEqual((await listed(s.cardIds[1]))?.nextIntervals, planned.nextIntervals);
  });

  it('a preset is shared: changing it changes every deck that uses it; the Default preset is listed with its decks', async () => {
    const a = await seed(t.client, 1, 'Shared A');
    const b = await seed(t.client, 1, 'Shared B');
    const p = await savePreset({ name: 'Shared', options: { newPerDay: 5 } });
    await assign(a.deckId, p.presetId);
    await assign(b.deckId, p.presetId);
    await savePreset({ presetId: p.presetId, options: { newPerDay: 7 } });
    for (const id of [a.deckId, b.deckId]) {
      const o = await t.client.call('GET /decks/{id}/options', { params: { id } });
      assert.equal(o.presetId, p.presetId);
      assert.equal(o.name, 'Shared');
      assert.equal(o.options.newPerDay, 7);
      assert.equal(o.options.reviewsPerDay, 200, 'keys not given keep their value');
    }
    const list = await t.client.call('GET /deck-presets');
    const shared = list.presets.find((x) => x.presetId === p.presetId);
    assert.ok(shared);
    assert.deepEqual(shared.deckIds.sort(), [a.deckId, b.deckId].sort());
    const def = list.presets.find((x) => x.presetId === 'default');
    assert.ok(def);
    assert.equal(def.builtIn, true);
    assert.equal(def.options.newPerDay, 20);
    assert.ok(!def.deckIds.includes(a.deckId));
    await assign(a.deckId, 'default');
    assert.equal((await t.client.call('GET /decks/{id}/options', { params: { id: a.deckId } })).options.newPerDay, 20);
  });

  describe('refusals change nothing', () => {
    let deckId: string;
    before(async () => (deckId = (await seed(t.client, 1, 'Refusals')).deckId));
    const digest = () => storeDigest(t.bridge.services.store);

    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['retention below 0.70', { desiredRetention: 0.5 }, /desiredRetention must be 0\.70\.\.0\.99/],
      ['retention above 0.99', { desiredRetention: 1 }, /desiredRetention/],
      ['a step without a unit', { learningSteps: ['10'] }, /a step is a number and m, h or d/],
      ['dayStartHour 24', { dayStartHour: 24 }, /dayStartHour must be 0\.\.23/],
      ['a negative limit', { newPerDay: -1 }, /newPerDay must be 0\.\.9999/],
      ['an unknown option', { newCardsPerDay: 10 }, /newCardsPerDay/],
      ['leechAction delete', { leechAction: 'delete' }, /leechAction must be suspend or tag/],
    ];
    for (const [what, options, message] of bad)
      it(`POST /deck-presets with ${what} → 422 INVALID_INPUT`, async () => {
        const before = digest();
        const res = await t.client.raw('POST', '/deck-presets', { body: { name: what, options, confirm: true } });
        assert.equal(res.status, 422, res.text());
        assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
        assert.match(res.json<any>().error.message + JSON.stringify(res.json<any>().error.details), message);
        assert.equal(digest(), before);
      });

    it('an unknown preset → 404 PRESET_NOT_FOUND (write and assign); a taken name → 409 PRESET_NAME_TAKEN', async () => {
      const before = digest();
      for (const res of [
        await t.client.raw('POST', '/deck-presets', { body: { presetId: 'nope', options: {}, confirm: true } }),
        await t.client.raw('POST', `/decks/${deckId}/options`, { body: { presetId: 'nope', confirm: true } }),
      ]) {
        assert.equal(res.status, 404, res.text());
        assert.equal(res.json<any>().error.code, 'PRESET_NOT_FOUND');
      }
      await savePreset({ name: 'Unique name' });
      const mid = digest();
      const clash = await t.client.raw('POST', '/deck-presets', { body: { name: 'unique NAME', confirm: true } });
      assert.equal(clash.status, 409);
      assert.equal(clash.json<any>().error.code, 'PRESET_NAME_TAKEN');
      // Renaming a preset to the built-in's name, whether or not Default was ever edited (and so has a row).
      const named = (await t.client.call('GET /deck-presets')).presets.find((p) => p.name === 'Unique name');
      assert.ok(named);
      const toDefault = await t.client.raw('POST', '/deck-presets', {
        body: { presetId: named.presetId, name: 'DEFAULT', confirm: true },
      });
      assert.equal(toDefault.status, 409, toDefault.text());
      assert.equal(toDefault.json<any>().error.code, 'PRESET_NAME_TAKEN');
      assert.equal(digest(), mid);
      assert.notEqual(before, mid);
    });

    it('an unknown deck → 404 TOPIC_NOT_FOUND; a study set → 422 NOT_A_DECK', async () => {
      const before = digest();
      const res = await t.client.raw('POST', '/decks/11111111-2222-4333-8444-555555555555/options', {
        body: { presetId: 'default', confirm: true },
      });
      assert.equal(res.status, 404);
      assert.equal(res.json<any>().error.code, 'TOPIC_NOT_FOUND');
      const set = await t.client.createStudySet('Not a deck');
      const mid = digest();
      const notDeck = await t.client.raw('GET', `/decks/${set.topicid}/options`);
      assert.equal(notDeck.status, 422);
      assert.equal(notDeck.json<any>().error.code, 'NOT_A_DECK');
      assert.equal(digest(), mid);
      assert.notEqual(before, mid);
    });
  });
});
