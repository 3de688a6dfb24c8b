import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as TsFsrs from 'ts-fsrs' with { 'resolution-mode': 'import' };
import { BridgeClient } from '../../src/client/bridgeClient';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';
import { storeDigest } from '../helpers/storeDigest';
import { card } from '../helpers/libraryFixtures';

// The expected schedules are computed here with ts-fsrs itself (default parameters, as the bridge uses).
const { createEmptyCard, fsrs, Rating } = require('ts-fsrs') as typeof TsFsrs;
const scheduler = fsrs();
const GRADE = { again: Rating.Again, hard: Rating.Hard, good: Rating.Good, easy: Rating.Easy } as const;
type RatingName = keyof typeof GRADE;

const UNKNOWN = '11111111-2222-4333-8444-555555555555';

/** Builds a set with cards (title, body, comments) and a deck holding them, through the routes. */
async function seed(
  client: BridgeClient,
  specs: Array<{ title: string; text?: string; comments?: string[]; question?: string }>,
) {
  const set = await client.createStudySet('Analysis');
  const ids: string[] = [];
  for (const s of specs) {
    const noteid = await card(client, set.topicid, { title: s.title, ...(s.text ? { text: s.text } : {}) });
    for (const c of s.comments ?? [])
      await client.request('POST', `/notes/${noteid}/comments`, { body: { text: c, confirm: true } });
    ids.push(noteid);
  }
  const deckId = (await client.createDeck('Analysis deck')).deckId;
  const added = await client.call('POST /decks/{id}/cards', {
    params: { id: deckId },
    body: {
      cards: specs.map((s, i) => ({ sourceNoteId: ids[i], ...(s.question ? { question: s.question } : {}) })),
      confirm: true,
    },
  });
  return {
    setId: set.topicid,
    deckId,
    sourceIds: ids,
    cardIds: added.cards.map((c) => c.cardNoteId),
  };
}

/** The ts-fsrs card a GET /decks/{id}/cards row describes (a new card: every counter still 0). */
function cardOf(c: { state: string; due: string } | undefined): TsFsrs.Card {
  assert.ok(c, 'a card row');
  assert.equal(c.state, 'new', 'expected values are computed from new cards');
  return { ...createEmptyCard(new Date(c.due)), due: new Date(c.due) };
}

describe('deck reviews: GET /decks/{id}/due, POST /decks/{id}/reviews, GET /decks/{id}/reviews', () => {
  let t: TestBridge;
  before(async () => {
    t = await startBridge();
  });
  after(() => t.stop());

  const digest = () => storeDigest(t.bridge.services.store);
  const due = (deckId: string, query?: Record<string, string>) =>
    t.client.call('GET /decks/{id}/due', { params: { id: deckId }, query });
  const grade = (deckId: string, body: Record<string, unknown>) =>
    t.client.raw('POST', `/decks/${deckId}/reviews`, { body: { confirm: true, ...body } });
  const cardsOf = async (deckId: string) =>
    new Map(
      (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId } })).cards.map((c) => [c.cardNoteId, c]),
    );

  it('due: new cards due at the same time come in the order they were added (one add call), also in GET /decks/{id}/cards', async () => {
    const titles = Array.from({ length: 16 }, (_, i) => `Card ${String.fromCharCode(80 - i)}`); // P, O, N… : neither id nor title order
    const s = await seed(
      t.client,
      titles.map((title) => ({ title })),
    );
    const res = await due(s.deckId);
    assert.deepEqual(
      res.cards.map((c) => c.cardNoteId),
      s.cardIds,
      'added order',
    );
    assert.deepEqual(
      res.cards.map((c) => c.question.text),
      titles,
    );
    const listed = (await t.client.call('GET /decks/{id}/cards', { params: { id: s.deckId } })).cards.map(
      (c) => c.cardNoteId,
    );
    assert.deepEqual(listed, s.cardIds);
    assert.notDeepEqual(
      [...s.cardIds].sort(),
      s.cardIds,
      'ids are not in added order: the test would fail on id order',
    );
  });

  it('due: every card with its question side resolved (title, cloze hidden, plain custom text), the answer side, and ts-fsrs intervals', async () => {
    const s = await seed(t.client, [
      {
        title: 'Chain rule',
        text: "(f∘g)' = (f'∘g)·g'",
        comments: ['Leibniz: dz/dx = dz/dy · dy/dx', 'see also the inverse rule'],
      },
      { title: 'Power rule', text: 'n·xⁿ⁻¹', question: 'd/dx xⁿ = {{cloze}} for every n' },
      { title: 'Mean value theorem', text: "f(b) − f(a) = f'(ξ)(b − a)", question: 'State the mean value theorem' },
    ]);
    const res = await due(s.deckId);
    assert.equal(res.deckId, s.deckId);
    assert.equal(res.title, 'Analysis deck');
    assert.equal(res.dueCount, 3);
    assert.equal(res.newCount, 3);
    assert.equal(res.reviewedToday, 0);
    assert.equal(res.dueTodayCount, 3);
    assert.equal(res.nextDueAt, null, 'nothing due later');
    const byId = new Map(res.cards.map((c) => [c.cardNoteId, c]));
    const [auto, cloze, custom] = s.cardIds.map((id) => byId.get(id));
    assert.ok(auto && cloze && custom, 'the three cards are due');
    // Each side also as the bridge's sanitised HTML: a card made of text shows that text.
    assert.deepEqual(auto.question, { kind: 'title', text: 'Chain rule', html: 'Chain rule' });
    assert.deepEqual(auto.answer, {
      title: 'Chain rule',
      body: "(f∘g)' = (f'∘g)·g'",
      excerpt: false,
      page: null,
      comments: ['Leibniz: dz/dx = dz/dy · dy/dx', 'see also the inverse rule'],
      html: "(f∘g)' = (f'∘g)·g'",
    });
    assert.deepEqual(cloze.question, {
      kind: 'cloze',
      text: 'd/dx xⁿ = […] for every n',
      html: 'd/dx xⁿ = <span class="cloze">[…]</span> for every n',
    });
    assert.equal(cloze.answer.body, 'n·xⁿ⁻¹');
    assert.deepEqual(custom.question, {
      kind: 'text',
      text: 'State the mean value theorem',
      html: 'State the mean value theorem',
    });
    assert.equal(auto.sourceNoteId, s.sourceIds[0]);
    assert.equal(auto.sourceAlive, true);

    // The four buttons: due dates as ts-fsrs gives them from the stored (new) card at the answer's `now`.
    const stored = await cardsOf(s.deckId);
    const preview = scheduler.repeat(cardOf(stored.get(auto.cardNoteId)), new Date(res.now));
    for (const r of ['again', 'hard', 'good', 'easy'] as const)
      assert.equal(auto.nextDues[r], preview[GRADE[r]].card.due.toISOString(), r);
    assert.deepEqual(auto.nextIntervals, { again: '1m', hard: '6m', good: '10m', easy: '8d' });
  });

  it('a grade reschedules the card as ts-fsrs computes it and stores a review log entry; names and numbers both grade', async () => {
    const s = await seed(t.client, [{ title: 'a' }, { title: 'b' }, { title: 'c' }, { title: 'd' }, { title: 'e' }]);
    const before = await cardsOf(s.deckId);
    const ratings: Array<[RatingName, RatingName | number]> = [
      ['again', 'again'],
      ['hard', 2],
      ['good', 'good'],
      ['easy', 4],
    ];
    const answers: any[] = [];
    for (const [i, [, sent]] of ratings.entries()) {
      const res = await grade(s.deckId, { cardNoteId: s.cardIds[i], rating: sent, durationMs: 1000 * (i + 1) });
      assert.equal(res.status, 200, res.text());
      answers.push(res.json<any>());
    }
    const after = await cardsOf(s.deckId);
    const log = (await t.client.call('GET /decks/{id}/reviews', { params: { id: s.deckId } })).reviews;
    assert.equal(log.length, 4);
    // The deck list says when the next graded card comes due: the earliest due date of the four, as /due does.
    const earliest = answers.map((a) => a.due).sort()[0];
    const summary = (await t.client.call('GET /decks')).decks.find((d) => d.deckId === s.deckId);
    assert.ok(summary, 'the deck is listed');
    assert.equal(summary.nextDueAt, earliest);
    assert.equal(summary.nextDueAt, (await due(s.deckId)).nextDueAt);
    assert.equal(summary.dueCount, 1, 'the ungraded card');
    for (const [i, [name]] of ratings.entries()) {
      const a = answers[i];
      const id = s.cardIds[i];
      const entry = log.find((e) => e.cardNoteId === id);
      assert.ok(entry, `${name}: a log entry`);
      // Expected: ts-fsrs applied to the stored card before the grade, at the review time the log holds.
      const expected = scheduler.next(cardOf(before.get(id)), new Date(entry.reviewedAt), GRADE[name]);
      assert.equal(a.persisted, true);
      assert.equal(a.cardNoteId, id);
      assert.equal(a.rating, name);
      assert.equal(a.grade, GRADE[name]);
      assert.equal(a.reviewLogId, entry.reviewLogId);
      assert.equal(a.due, expected.card.due.toISOString(), `${name}: due`);
      assert.equal(a.scheduledDays, expected.card.scheduled_days);
      assert.equal(after.get(id)?.due, expected.card.due.toISOString(), `${name}: GET cards shows the new due date`);
      assert.equal(after.get(id)?.reps, 1);
      assert.equal(after.get(id)?.state, a.state);
      assert.deepEqual(
        {
          rating: entry.rating,
          grade: entry.grade,
          stateBefore: entry.stateBefore,
          dueBefore: entry.dueBefore,
          stability: entry.stability,
          difficulty: entry.difficulty,
          elapsedDays: entry.elapsedDays,
          scheduledDays: entry.scheduledDays,
          learningSteps: entry.learningSteps,
          durationMs: entry.durationMs,
          dueAfter: entry.dueAfter,
          actor: entry.actor,
        },
        {
          rating: name,
          grade: GRADE[name],
          stateBefore: 'new',
          dueBefore: before.get(id)?.due,
          stability: expected.log.stability,
          difficulty: expected.log.difficulty,
          elapsedDays: expected.log.elapsed_days,
          scheduledDays: expected.log.scheduled_days,
          learningSteps: expected.log.learning_steps,
          durationMs: 1000 * (i + 1),
          dueAfter: expected.card.due.toISOString(),
          actor: 'agent',
        },
      );
    }
    // The ungraded card is still due and new; the easy one is days away; reviewedToday counts the grades.
    assert.equal(after.get(s.cardIds[4])?.state, 'new');
    const d = await due(s.deckId);
    assert.equal(d.reviewedToday, 4);
    assert.deepEqual(
      d.cards.map((c) => c.cardNoteId),
      [s.cardIds[4]],
      'graded cards are no longer due now',
    );
    assert.equal(d.nextDueAt, answers[0].due, 'the next due card is the one graded again (1 minute)');
    // A second grade of the same card: its log entry starts from the first grade's result.
    const again = (await grade(s.deckId, { cardNoteId: s.cardIds[2], rating: 'good' })).json<any>();
    const second = (
      await t.client.call('GET /decks/{id}/reviews', { params: { id: s.deckId }, query: { cardNoteId: s.cardIds[2] } })
    ).reviews;
    assert.deepEqual(
      second.map((e) => e.rating),
      ['good', 'good'],
    );
    assert.equal(second[1].stateBefore, 'learning');
    assert.equal(second[1].dueBefore, answers[2].due);
    assert.equal(second[1].reviewLogId, again.reviewLogId);
    assert.equal(again.state, 'review', 'good twice graduates a new card');
  });

  it('due lists learning cards before new ones; a grade by the user actor is logged as user', async () => {
    const s = await seed(t.client, [{ title: 'first' }, { title: 'second' }]);
    // Graded "again" 2 minutes ago: its 1-minute step is over, so it is due again, as a learning card.
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    const user = new BridgeClient({ baseUrl: t.client.baseUrl, token: t.bridge.token });
    const res = await user.raw('POST', `/decks/${s.deckId}/reviews`, {
      body: { cardNoteId: s.cardIds[1], rating: 'again', reviewedAt: twoMinutesAgo, confirm: true },
    });
    assert.equal(res.status, 200, res.text());
    const d = await due(s.deckId);
    assert.deepEqual(
      d.cards.map((c) => [c.cardNoteId, c.state]),
      [
        [s.cardIds[1], 'learning'],
        [s.cardIds[0], 'new'],
      ],
    );
    assert.equal(d.learningCount, 1);
    assert.equal(d.newCount, 1);
    assert.equal((await due(s.deckId, { limit: '1' })).cards.length, 1, 'limit caps the cards, not the counts');
    const log = (await t.client.call('GET /decks/{id}/reviews', { params: { id: s.deckId } })).reviews;
    assert.equal(log[0].actor, 'user');
    assert.equal(log[0].reviewedAt, twoMinutesAgo);
  });

  describe('refusals change nothing', () => {
    let s: Awaited<ReturnType<typeof seed>>;
    let otherDeck: Awaited<ReturnType<typeof seed>>;
    before(async () => {
      s = await seed(t.client, [{ title: 'refuse me' }]);
      otherDeck = await seed(t.client, [{ title: 'elsewhere' }]);
    });

    const cases: Array<[string, () => [string, Record<string, unknown>], number, string]> = [
      [
        'unknown deck → 404 TOPIC_NOT_FOUND',
        () => [UNKNOWN, { cardNoteId: s.cardIds[0], rating: 'good', confirm: true }],
        404,
        'TOPIC_NOT_FOUND',
      ],
      [
        'a study set id → 422 NOT_A_DECK',
        () => [s.setId, { cardNoteId: s.cardIds[0], rating: 'good', confirm: true }],
        422,
        'NOT_A_DECK',
      ],
      [
        'unknown card → 404 CARD_NOT_FOUND',
        () => [s.deckId, { cardNoteId: UNKNOWN, rating: 'good', confirm: true }],
        404,
        'CARD_NOT_FOUND',
      ],
      [
        "another deck's card → 404 CARD_NOT_FOUND",
        () => [s.deckId, { cardNoteId: otherDeck.cardIds[0], rating: 'good', confirm: true }],
        404,
        'CARD_NOT_FOUND',
      ],
      [
        'a source card id (not a review card) → 404 CARD_NOT_FOUND',
        () => [s.deckId, { cardNoteId: s.sourceIds[0], rating: 'good', confirm: true }],
        404,
        'CARD_NOT_FOUND',
      ],
      [
        'rating "perfect" → 422 INVALID_INPUT',
        () => [s.deckId, { cardNoteId: s.cardIds[0], rating: 'perfect', confirm: true }],
        422,
        'INVALID_INPUT',
      ],
      [
        'rating 5 → 422 INVALID_INPUT',
        () => [s.deckId, { cardNoteId: s.cardIds[0], rating: 5, confirm: true }],
        422,
        'INVALID_INPUT',
      ],
      [
        'rating 0 → 422 INVALID_INPUT',
        () => [s.deckId, { cardNoteId: s.cardIds[0], rating: 0, confirm: true }],
        422,
        'INVALID_INPUT',
      ],
      [
        'no rating → 422 INVALID_INPUT',
        () => [s.deckId, { cardNoteId: s.cardIds[0], confirm: true }],
        422,
        'INVALID_INPUT',
      ],
      [
        'negative durationMs → 422 INVALID_INPUT',
        () => [s.deckId, { cardNoteId: s.cardIds[0], rating: 'good', durationMs: -1, confirm: true }],
        422,
        'INVALID_INPUT',
      ],
      [
        'reviewedAt in the future → 422 INVALID_INPUT',
        () => [
          s.deckId,
          {
            cardNoteId: s.cardIds[0],
            rating: 'good',
            reviewedAt: new Date(Date.now() + 3_600_000).toISOString(),
            confirm: true,
          },
        ],
        422,
        'INVALID_INPUT',
      ],
      [
        'missing confirm → 422 CONFIRM_REQUIRED',
        () => [s.deckId, { cardNoteId: s.cardIds[0], rating: 'good' }],
        422,
        'CONFIRM_REQUIRED',
      ],
    ];
    for (const [title, input, status, code] of cases) {
      it(title, async () => {
        const [deckId, body] = input();
        const before = digest();
        const res = await t.client.raw('POST', `/decks/${deckId}/reviews`, { body });
        assert.equal(res.status, status, res.text());
        assert.equal(res.json<any>().error.code, code);
        assert.equal(digest(), before);
      });
    }

    it('GET due and GET reviews: unknown deck → 404, a study set → 422 NOT_A_DECK, bad limit → 422', async () => {
      for (const path of ['due', 'reviews']) {
        assert.equal(
          (await t.client.raw('GET', `/decks/${UNKNOWN}/${path}`)).json<any>().error.code,
          'TOPIC_NOT_FOUND',
        );
        assert.equal((await t.client.raw('GET', `/decks/${s.setId}/${path}`)).json<any>().error.code, 'NOT_A_DECK');
        const bad = await t.client.raw('GET', `/decks/${s.deckId}/${path}`, { query: { limit: '0' } });
        assert.equal(bad.status, 422);
      }
    });

    it('premium off → 403 MAX_REQUIRED, nothing changed; GET due still answers', async () => {
      const dataDir = tempDir('sb-reviews-premium-');
      const on = await startBridge({ dataDir });
      const p = await seed(on.client, [{ title: 'premium' }]);
      await on.stop();
      const off = await startBridge({ dataDir, premium: false });
      try {
        const before = storeDigest(off.bridge.services.store);
        const res = await off.client.raw('POST', `/decks/${p.deckId}/reviews`, {
          body: { cardNoteId: p.cardIds[0], rating: 'good', confirm: true },
        });
        assert.equal(res.status, 403);
        assert.equal(res.json<any>().error.code, 'MAX_REQUIRED');
        assert.equal(storeDigest(off.bridge.services.store), before);
        assert.equal((await off.client.call('GET /decks/{id}/due', { params: { id: p.deckId } })).dueCount, 1);
      } finally {
        await off.stop();
      }
    });
  });

  it('a grade survives kill -9: the rescheduled card and its review log entry are there after restart', async function () {
    this.timeout(60_000);
    const dataDir = tempDir('sb-reviews-crash-');
    const first = await spawnBridge(['--data', dataDir, '--port', '0']);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const client = new BridgeClient({ baseUrl: first.baseUrl, token });
    const s = await seed(client, [{ title: 'durable' }, { title: 'also durable' }]);
    const a = await client.call('POST /decks/{id}/reviews', {
      params: { id: s.deckId },
      body: { cardNoteId: s.cardIds[0], rating: 'easy', durationMs: 2500, confirm: true },
    });
    const b = await client.call('POST /decks/{id}/reviews', {
      params: { id: s.deckId },
      body: { cardNoteId: s.cardIds[1], rating: 'hard', confirm: true },
    });
    assert.equal(a.persisted, true);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');

    const second = await spawnBridge(['--data', dataDir, '--port', '0']);
    try {
      const client2 = new BridgeClient({ baseUrl: second.baseUrl, token });
      const cards = new Map(
        (await client2.call('GET /decks/{id}/cards', { params: { id: s.deckId } })).cards.map((c) => [c.cardNoteId, c]),
      );
      assert.equal(cards.get(s.cardIds[0])?.due, a.due);
      assert.equal(cards.get(s.cardIds[0])?.state, 'review');
      assert.equal(cards.get(s.cardIds[1])?.due, b.due);
      const log = (await client2.call('GET /decks/{id}/reviews', { params: { id: s.deckId } })).reviews;
      assert.deepEqual(
        log.map((e) => [e.reviewLogId, e.rating, e.durationMs, e.dueAfter]),
        [
          [a.reviewLogId, 'easy', 2500, a.due],
          [b.reviewLogId, 'hard', null, b.due],
        ],
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
