import assert from 'node:assert/strict';
import type * as TsFsrs from 'ts-fsrs' with { 'resolution-mode': 'import' };
import { BridgeClient as Client } from '../../src/client/bridgeClient';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { card } from '../helpers/libraryFixtures';

const { createEmptyCard, fsrs, generatorParameters, Rating } = require('ts-fsrs') as typeof TsFsrs;

const DAY = 86_400_000;
/** Cards with a history (see historyEnd); the deck holds 10 more never graded. */
const STUDIED = 140;
/**
 * The simulated person forgets far sooner than FSRS-6's defaults expect (first
 * stabilities a fifth of theirs, a steeper curve), so grades at the due dates
 * the defaults give fail far more often than the 10 % they predict.
 */
const TRUE_WEIGHTS = [
  0.05, 0.25, 0.45, 1.6, 6.4133, 0.8334, 3.0194, 0.001, 1.2, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014,
  1.8729, 0.5425, 0.0912, 0.0658, 0.5,
];

/** A fixed-seed generator: the history, and so the fit, is the same on every run. */
function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
}

/**
 * Where the simulated history ends: the last midnight (UTC), not the clock. Intervals count study days, so the
 * history's shape followed the clock's time of day, and with 70 cards the held-out tail was small enough that at one
 * end hour in eight the fit lost to the defaults (Node 24 in CI). With 140 cards the fit won at all eight end hours
 * tried, by 0.012–0.022 in log loss, well above the 0.001 two runs at one end hour differ by.
 */
function historyEnd() {
  return Math.floor(Date.now() / DAY) * DAY;
}

/** A set with `n` cards and a deck reading them, through the routes. */
async function seed(client: Client, n: number, title: string) {
  const set = await client.createStudySet(`${title} set`);
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(await card(client, set.topicid, { title: `${title} card ${i}`, text: `answer ${i}` }));
  const deckId = (await client.createDeck(title)).deckId;
  const cardIds: string[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const added = await client.call('POST /decks/{id}/cards', {
      params: { id: deckId },
      body: { cards: ids.slice(i, i + 50).map((sourceNoteId) => ({ sourceNoteId })), confirm: true },
    });
    cardIds.push(...added.cards.map((c) => c.cardNoteId));
  }
  return { deckId, cardIds };
}

/**
 * Grades each card through POST /decks/{id}/reviews as the simulated person
 * would: at the due date the bridge gave, recalled with the probability the
 * true weights give (a grade of again otherwise), from `days` ago up to now.
 * Stops a card after `maxPerCard` grades. Answers the number of grades.
 */
async function study(client: Client, deckId: string, cardIds: string[], days: number, maxPerCard: number) {
  const rnd = random(7);
  const truth = fsrs(generatorParameters({ w: TRUE_WEIGHTS, enable_fuzz: false }));
  const now = historyEnd();
  let grades = 0;
  for (const [i, cardNoteId] of cardIds.entries()) {
    let at = new Date(now - days * DAY + i * 3_600_000);
    let mind = createEmptyCard(at);
    for (let k = 0; k < maxPerCard && at.getTime() < now - 60_000; k++) {
      const recalled = k > 0 && rnd() < truth.get_retrievability(mind, at, false);
      const grade = k === 0 ? (rnd() < 0.7 ? Rating.Good : Rating.Again) : recalled ? Rating.Good : Rating.Again;
      mind = truth.next(mind, at, grade).card;
      const rating = grade === Rating.Good ? 'good' : 'again';
      const graded = await client.call('POST /decks/{id}/reviews', {
        params: { id: deckId },
        body: { cardNoteId, rating, reviewedAt: at.toISOString(), confirm: true },
      });
      grades++;
      // The next grade at the due date the bridge gave, but a study day later at least (the person studies daily).
      at = new Date(Math.max(Date.parse(graded.due), at.getTime() + DAY));
    }
  }
  return grades;
}

function events(text: string) {
  return text
    .split('\n\n')
    .filter((b) => b.includes('event: '))
    .map((b) => ({
      event: /event: (.*)/.exec(b)![1],
      data: JSON.parse(/data: (.*)/.exec(b)![1]),
    }));
}

describe('POST /decks/{id}/optimize: FSRS fitted to the review log', function () {
  this.timeout(300_000);
  let t: TestBridge;
  let deck: { deckId: string; cardIds: string[] };
  let grades = 0;
  before(async () => {
    t = await startBridge();
    deck = await seed(t.client, STUDIED + 10, 'Fit');
    grades = await study(t.client, deck.deckId, deck.cardIds.slice(0, STUDIED), 180, 12);
  });
  after(() => t.stop());

  const optimize = (deckId: string, body: Record<string, unknown>) =>
    t.client.raw('POST', `/decks/${deckId}/optimize`, { body });

  it('unconfirmed: 422 CONFIRM_REQUIRED with the history it would fit, nothing changed', async () => {
    assert.ok(grades >= 400, `${grades} grades`);
    const before = storeDigest(t.bridge.services.store);
    const res = await optimize(deck.deckId, {});
    assert.equal(res.status, 422, res.text());
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.equal(err.details.reviews, grades);
    assert.equal(err.details.cards, STUDIED);
    assert.equal(err.details.presetId, 'default');
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('apply:false fits and scores on the held-out tail, and the preset keeps the defaults', async () => {
    const before = storeDigest(t.bridge.services.store);
    const res = await optimize(deck.deckId, { confirm: true, apply: false });
    assert.equal(res.status, 200, res.text());
    const r = res.json<any>();
    assert.equal(r.reviews, grades);
    assert.equal(r.trainItems + r.testItems, grades - STUDIED, 'one item per grade after a card first one');
    assert.ok(r.testItems > 0 && r.testItems < r.trainItems);
    assert.equal(r.parameters.length, 21);
    assert.notDeepEqual(r.parameters, r.defaultParameters);
    assert.equal(r.applied, false);
    assert.match(r.notApplied, /apply:false/);
    assert.equal(r.scores.current, null);
    process.stdout.write(
      `      (${grades} grades: fit ${r.fitMs} ms; log loss ${r.scores.default.logLoss.toFixed(4)} -> ${r.scores.fitted.logLoss.toFixed(4)}, RMSE(bins) ${r.scores.default.rmseBins.toFixed(4)} -> ${r.scores.fitted.rmseBins.toFixed(4)})\n`,
    );
    assert.equal(storeDigest(t.bridge.services.store), before);
    assert.equal(
      (await t.client.call('GET /decks/{id}/options', { params: { id: deck.deckId } })).options.fsrsParameters,
      null,
    );
  });

  it('confirmed: the fitted weights beat the defaults on the tail, are stored in the preset and grading uses them', async () => {
    const r = await t.client.call('POST /decks/{id}/optimize', {
      params: { id: deck.deckId },
      body: { confirm: true },
    });
    assert.ok(
      r.scores.fitted.logLoss < r.scores.default.logLoss,
      `log loss ${r.scores.fitted.logLoss} vs ${r.scores.default.logLoss}`,
    );
    assert.equal(r.applied, true);
    const { options } = await t.client.call('GET /decks/{id}/options', { params: { id: deck.deckId } });
    assert.deepEqual(options.fsrsParameters, r.parameters);

    // A card never graded, graded easy now: its interval follows the fitted first stability, not the default one.
    const at = new Date(Date.now() - 60_000);
    const graded = await t.client.call('POST /decks/{id}/reviews', {
      params: { id: deck.deckId },
      body: { cardNoteId: deck.cardIds[STUDIED + 5], rating: 'easy', reviewedAt: at.toISOString(), confirm: true },
    });
    const expectWith = (w?: number[]) =>
      fsrs(
        generatorParameters({
          ...(w ? { w } : {}),
          request_retention: options.desiredRetention,
          maximum_interval: options.maximumInterval,
          learning_steps: options.learningSteps as TsFsrs.Steps,
          relearning_steps: options.relearningSteps as TsFsrs.Steps,
          enable_fuzz: false,
        }),
      )
        .next(createEmptyCard(at), at, Rating.Easy)
        .card.due.toISOString();
    assert.equal(graded.due, expectWith(r.parameters));
    assert.notEqual(graded.due, expectWith());

    // Again: now the weights in use are scored too; no better fit leaves them in place.
    const again = await t.client.call('POST /decks/{id}/optimize', {
      params: { id: deck.deckId },
      body: { confirm: true },
    });
    assert.ok(again.scores.current, 'the weights in use are scored');
    assert.deepEqual(again.previousParameters, r.parameters);
  });

  it('stream:true answers server-sent events: progress, then the result', async () => {
    const res = await optimize(deck.deckId, { confirm: true, apply: false, stream: true });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const list = events(res.text());
    const stages = list.filter((e) => e.event === 'progress').map((e) => e.data.stage as string);
    assert.equal(stages[0], 'prepare', res.text().slice(0, 300));
    assert.equal(stages[stages.length - 1], 'score');
    assert.deepEqual(
      [...new Set(stages)].filter((s) => s !== 'fit'),
      ['prepare', 'score'],
    );
    const last = list[list.length - 1];
    assert.equal(last.event, 'result');
    assert.equal(last.data.reviews, grades + 1);
    assert.equal(last.data.parameters.length, 21);
  });

  it('a history under 400 reviews → 422 REVIEW_HISTORY_TOO_SHORT with both counts, also when streamed; nothing changed', async () => {
    const short = await seed(t.client, 6, 'Short');
    const preset = await t.client.call('POST /deck-presets', { body: { name: 'Short', confirm: true } });
    await t.client.call('POST /decks/{id}/options', {
      params: { id: short.deckId },
      body: { presetId: preset.presetId, confirm: true },
    });
    const n = await study(t.client, short.deckId, short.cardIds, 60, 5);
    assert.ok(n >= 20 && n < 400, `${n} grades`);
    const before = storeDigest(t.bridge.services.store);
    for (const body of [{ confirm: true }, { confirm: true, stream: true }, {}]) {
      const res = await optimize(short.deckId, body);
      assert.equal(res.status, 422, res.text());
      const err = res.json<any>().error;
      assert.equal(err.code, 'REVIEW_HISTORY_TOO_SHORT');
      assert.equal(err.details.reviews, n);
      assert.equal(err.details.needed, 400);
      assert.match(err.message, new RegExp(`at least 400 reviews.*they have ${n}\\b`));
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('where fsrs-rs does not load → 503 FSRS_OPTIMIZER_UNAVAILABLE naming why, nothing changed', async () => {
    const before = storeDigest(t.bridge.services.store);
    process.env.STUDY_BRIDGE_NO_FSRS_OPTIMIZER = '1'; // read by the optimizer's thread, which inherits it
    try {
      const res = await optimize(deck.deckId, { confirm: true });
      assert.equal(res.status, 503, res.text());
      const err = res.json<any>().error;
      assert.equal(err.code, 'FSRS_OPTIMIZER_UNAVAILABLE');
      assert.equal(err.details.module, '@open-spaced-repetition/binding');
      assert.match(err.details.loadError, /Cannot find module/);
    } finally {
      delete process.env.STUDY_BRIDGE_NO_FSRS_OPTIMIZER;
    }
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('fsrsParameters through POST /deck-presets: 17/19/21 numbers or null; another count → 422', async () => {
    const bad = await t.client.raw('POST', '/deck-presets', {
      body: { name: 'Bad weights', options: { fsrsParameters: [1, 2, 3] }, confirm: true },
    });
    assert.equal(bad.status, 422);
    assert.match(bad.json<any>().error.message, /17, 19, 21 numbers/);
    const set = await t.client.call('POST /deck-presets', {
      body: { presetId: 'default', options: { fsrsParameters: null }, confirm: true },
    });
    assert.equal(set.options.fsrsParameters, null);
  });

  it('no token or a bad one → 401, a read token → 403 SCOPE_REQUIRED, premium off → 403 MAX_REQUIRED; nothing changed', async () => {
    // A token's use is recorded (agent_tokens); nothing else may change.
    const digest = () => storeDigest(t.bridge.services.store).replace(/^agent_tokens=.*$/m, '');
    const before = digest();
    const body = { body: { confirm: true } };
    const path = `/decks/${deck.deckId}/optimize`;
    assert.equal((await t.anonymous.raw('POST', path, body)).json<any>().error.code, 'UNAUTHORIZED');
    const bad = new Client({ baseUrl: t.bridge.baseUrl, token: 'sb_not_a_token' });
    assert.equal((await bad.raw('POST', path, body)).status, 401);
    const read = await t.bridge.services.tokens.issue('optimize reader', 'read');
    const reader = new Client({ baseUrl: t.bridge.baseUrl, token: read.token });
    const refused = await reader.raw('POST', path, body);
    assert.equal(refused.status, 403);
    assert.equal(refused.json<any>().error.code, 'SCOPE_REQUIRED');
    assert.equal(digest(), before);

    const dataDir = tempDir('sb-optimize-premium-');
    const on = await startBridge({ dataDir });
    const p = await seed(on.client, 1, 'Premium');
    await on.stop();
    const off = await startBridge({ dataDir, premium: false });
    try {
      const offBefore = storeDigest(off.bridge.services.store);
      const res = await off.client.raw('POST', `/decks/${p.deckId}/optimize`, body);
      assert.equal(res.status, 403);
      assert.equal(res.json<any>().error.code, 'MAX_REQUIRED');
      assert.equal(storeDigest(off.bridge.services.store), offBefore);
    } finally {
      await off.stop();
    }
  });
});
