import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card as newCard } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

const UNKNOWN = '11111111-2222-4333-8444-555555555555';

describe('deck cards: GET/POST /decks/{id}/cards, grades, open', () => {
  let t: TestBridge;
  let setId: string;
  let rootId: string;

  before(async () => {
    t = await startBridge();
    const set = await t.client.createStudySet('Calculus');
    setId = set.topicid;
    rootId = set.rootNoteId!;
  });
  after(() => t.stop());

  const digest = () => storeDigest(t.bridge.services.store);
  const deck = async (title = 'Deck') => (await t.client.createDeck(title)).deckId;

  /** Cards of the set through POST /study-sets/{id}/notes; content parts (made by bundles and images, no route of their own) straight into note_parts. */
  async function cards(
    specs: Array<{ title: string; text?: string; parts?: Array<{ contentId: string; kind: string }> }>,
  ) {
    const ids: string[] = [];
    for (const s of specs) {
      ids.push(await newCard(t, setId, { title: s.title, ...(s.text ? { text: s.text } : {}) }));
    }
    const withParts = specs.map((s, i) => [ids[i], s.parts ?? []] as const).filter(([, p]) => p.length);
    if (withParts.length) {
      await t.bridge.services.store.write((tx) =>
        withParts.forEach(([noteid, parts]) =>
          parts.forEach((p, idx) =>
            tx.run('INSERT INTO note_parts(content_id, noteid, idx, kind) VALUES (?, ?, ?, ?)', [
              p.contentId,
              noteid,
              idx,
              p.kind,
            ]),
          ),
        ),
      );
    }
    return ids;
  }

  const referenceCopy = async (noteid: string) =>
    (
      await t.client.call('POST /notes/copy', {
        body: { noteIds: [noteid], targetParentNoteId: rootId, mode: 'reference', confirm: true },
      })
    ).copies[0].newNoteId;
  const batchGet = async (noteIds: string[]) => await t.client.call('POST /notes/batch-get', { body: { noteIds } });

  const add = (deckId: string, body: Record<string, unknown>) =>
    t.client.raw('POST', `/decks/${deckId}/cards`, { body: { confirm: true, ...body } });
  const list = async (deckId: string, query?: Record<string, string>) =>
    (await t.client.call('GET /decks/{id}/cards', { params: { id: deckId }, query })).cards;
  const summary = async (deckId: string) => {
    const s = (await t.client.listDecks()).find((d) => d.deckId === deckId);
    assert.ok(s, 'the deck is listed');
    return s;
  };
  const reviewCard = (deckId: string, cardId: string, body: Record<string, unknown>) =>
    t.client.raw('POST', `/decks/${deckId}/reviews`, { body: { cardNoteId: cardId, confirm: true, ...body } });

  it('adds cards in all three question modes; GET cards and GET /decks read them back (due now, new)', async () => {
    const d = await deck('Derivatives');
    const [auto, cloze, part] = await cards([
      { title: 'Chain rule', text: "(f∘g)' = f'(g)·g'" },
      { title: 'Power rule', text: 'n·x^(n-1)' },
      {
        title: 'Graph',
        parts: [
          { contentId: 'PART-A', kind: 'text' },
          { contentId: 'PART-B', kind: 'image' },
        ],
      },
    ]);
    const before = new Date().toISOString();
    const res = await add(d, {
      cards: [
        { sourceNoteId: auto },
        { sourceNoteId: cloze, question: 'd/dx xⁿ = {{cloze}}', title: 'Power' },
        { sourceNoteId: part, questionContentId: 'PART-B' },
      ],
    });
    assert.equal(res.status, 200, res.text());
    const out = res.json<any>();
    assert.equal(out.persisted, true);
    assert.deepEqual(
      out.cards.map((c: any) => [c.sourceNoteId, c.resolvedNoteId, c.updatedExisting, c.questionMode]),
      [
        [auto, auto, false, 'automatic'],
        [cloze, cloze, false, 'custom_text'],
        [part, part, false, 'content_part'],
      ],
    );
    assert.equal(out.cards[0].autoQuestionIndex, 0);

    const got = await list(d);
    assert.equal(got.length, 3);
    const byId = new Map(got.map((c) => [c.sourceNoteId, c]));
    assert.deepEqual(got.map((c) => c.cardNoteId).sort(), out.cards.map((c: any) => c.cardNoteId).sort());
    assert.equal(byId.get(auto)?.title, 'Chain rule');
    assert.equal(byId.get(auto)?.questionMode, 'automatic');
    assert.equal(byId.get(auto)?.question, undefined);
    assert.equal(byId.get(cloze)?.title, 'Power');
    assert.equal(byId.get(cloze)?.question, 'd/dx xⁿ = {{cloze}}');
    assert.equal(byId.get(part)?.questionContentId, 'PART-B');
    assert.equal(byId.get(part)?.questionMode, 'content_part');
    for (const c of got) {
      assert.equal(c.sourceAlive, true);
      assert.equal(c.state, 'new');
      assert.equal(c.reps, 0);
      assert.equal(c.lapses, 0);
      assert.equal(c.lastReviewAt, null);
      assert.ok(c.due >= before && c.due <= new Date().toISOString(), c.due);
      assert.deepEqual(c.nextIntervals, { again: '1m', hard: '6m', good: '10m', easy: '8d' });
    }
    const s = await summary(d);
    assert.equal(s.cardCount, 3);
    assert.equal(s.dueCount, 3);
    assert.equal(s.newCount, 3);
    assert.ok(s.lastModifiedAt >= before, 'adding touches the deck');
    assert.equal((await list(d, { due: '1' })).length, 3);
  });

  it('the dry-run previews wouldAdd and changes nothing', async () => {
    const d = await deck();
    const [a, b] = await cards([{ title: 'A' }, { title: 'B', parts: [{ contentId: 'PART-DRY', kind: 'text' }] }]);
    await add(d, { cards: [{ sourceNoteId: a }] });
    const before = digest();
    const res = await t.client.raw('POST', `/decks/${d}/cards`, {
      body: {
        cards: [
          { sourceNoteId: a, question: 'Q {{cloze}}' },
          { sourceNoteId: b, questionContentId: 'PART-DRY' },
        ],
      },
    });
    assert.equal(res.status, 422);
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.deepEqual(err.details.wouldAdd, [
      {
        sourceNoteId: a,
        resolvedNoteId: a,
        updatedExisting: true,
        questionMode: 'custom_text',
        questionPart: { kind: 'custom_text', partIndex: null, questionIndex: null, hasImageOcclusions: false },
      },
      {
        sourceNoteId: b,
        resolvedNoteId: b,
        updatedExisting: false,
        questionMode: 'content_part',
        questionPart: { kind: 'text', partIndex: 0, questionIndex: 0, hasImageOcclusions: false },
      },
    ]);
    assert.equal(digest(), before);
  });

  it('adding a source again updates the front and reschedules the card (due now, reps 0)', async () => {
    const d = await deck();
    const [src] = await cards([{ title: 'Limit', text: 'ε-δ' }]);
    const first = (await add(d, { cards: [{ sourceNoteId: src }] })).json<any>().cards[0];
    const rev = await reviewCard(d, first.cardNoteId, { rating: 'easy' });
    assert.equal(rev.status, 200, rev.text());
    const reviewed = (await list(d))[0];
    assert.equal(reviewed.reps, 1);
    assert.equal(reviewed.state, 'review');
    assert.ok(reviewed.due > new Date(Date.now() + 86_400_000).toISOString(), 'easy puts it days ahead');
    assert.equal((await summary(d)).dueCount, 0);

    const again = await add(d, {
      cards: [{ sourceNoteId: src, question: 'Define the {{cloze}} of f at a', title: 'Limit (cloze)' }],
    });
    assert.equal(again.status, 200, again.text());
    const out = again.json<any>().cards[0];
    assert.equal(out.updatedExisting, true);
    assert.equal(out.cardNoteId, first.cardNoteId, 'the same review card');
    const c = await list(d);
    assert.equal(c.length, 1);
    assert.equal(c[0].question, 'Define the {{cloze}} of f at a');
    assert.equal(c[0].title, 'Limit (cloze)');
    assert.equal(c[0].questionMode, 'custom_text');
    assert.equal(c[0].reps, 0);
    assert.equal(c[0].state, 'new');
    assert.equal(c[0].lastReviewAt, null);
    assert.ok(c[0].due <= new Date().toISOString(), 'due again now');
    const s = await summary(d);
    assert.equal(s.cardCount, 1);
    assert.equal(s.dueCount, 1);
    assert.equal(s.newCount, 1);
  });

  it('a reference copy resolves to its original; its own content parts and the original parts are accepted', async () => {
    const d = await deck();
    const [orig] = await cards([
      { title: 'Original', text: 'body', parts: [{ contentId: 'PART-ORIG', kind: 'text' }] },
    ]);
    const copy = await referenceCopy(orig);
    assert.notEqual(copy, orig);
    const res = await add(d, { cards: [{ sourceNoteId: copy, questionContentId: 'PART-ORIG' }] });
    assert.equal(res.status, 200, res.text());
    assert.equal(res.json<any>().cards[0].resolvedNoteId, orig);
    const [c] = await list(d);
    assert.equal(c.sourceNoteId, copy);
    assert.equal(c.resolvedNoteId, orig);
    assert.equal(c.sourceAlive, true);
    assert.equal(c.title, 'Original');
    // The original is what the review card reads: batch-get shows its body.
    const [read] = (await batchGet([c.resolvedNoteId])).notes;
    assert.equal(read.texts.find((x) => x.index === 0)?.text, 'body');

    // Deleting the original promotes the copy to an independent card: it now resolves to itself.
    const del = await t.client.raw('POST', '/notes/delete', { body: { noteIds: [orig], confirm: true } });
    assert.equal(del.status, 200, del.text());
    const [after] = await list(d);
    assert.equal(after.resolvedNoteId, copy);
    assert.equal(after.sourceAlive, true);
  });

  it('a hidden or deleted source keeps its review card with sourceAlive:false', async () => {
    const d = await deck();
    const [hidden, purged, kept] = await cards([{ title: 'Hidden' }, { title: 'Purged' }, { title: 'Kept' }]);
    await add(d, { cards: [hidden, purged, kept].map((sourceNoteId) => ({ sourceNoteId })) });
    const del = await t.client.raw('POST', '/notes/delete', { body: { noteIds: [hidden], confirm: true } });
    assert.equal(del.status, 200, del.text());
    assert.deepEqual((await batchGet([hidden, kept])).notFound, [hidden], 'the delete route hid it');
    // A card removed for good (a set deleted with keepHighlights:false) leaves no row at all.
    await t.bridge.services.store.write((tx) => tx.run('DELETE FROM notes WHERE noteid = ?', [purged]));
    const got = new Map((await list(d)).map((c) => [c.sourceNoteId, c]));
    assert.equal(got.size, 3);
    assert.equal(got.get(hidden)?.sourceAlive, false);
    assert.equal(got.get(hidden)?.title, '');
    assert.equal(got.get(purged)?.sourceAlive, false);
    assert.equal(got.get(purged)?.resolvedNoteId, purged);
    assert.equal(got.get(kept)?.sourceAlive, true);
    assert.equal(got.get(kept)?.title, 'Kept');
    assert.equal((await summary(d)).cardCount, 3);

    // …and a hidden card cannot become a new source.
    const d2 = await deck();
    const res = await add(d2, { cards: [{ sourceNoteId: hidden }] });
    assert.equal(res.status, 404);
    assert.equal(res.json<any>().error.code, 'NOTE_NOT_FOUND');
  });

  it('review: good moves due into the future, again sends a reviewed card to relearning, reps and lapses count', async () => {
    const d = await deck();
    const [src] = await cards([{ title: 'Integral' }]);
    const card = (await add(d, { cards: [{ sourceNoteId: src }] })).json<any>().cards[0];
    // Reviews replayed from a log: reviewedAt in the past.
    const t0 = new Date(Date.now() - 60 * 86_400_000);

    const good = await reviewCard(d, card.cardNoteId, { rating: 'good', reviewedAt: t0.toISOString() });
    assert.equal(good.status, 200, good.text());
    const g = good.json<any>();
    assert.equal(g.persisted, true);
    assert.equal(g.rating, 'good');
    assert.equal(g.state, 'learning');
    assert.equal(g.reps, 1);
    assert.equal(g.previousDue, card.due);
    assert.equal(
      g.due,
      new Date(t0.getTime() + 10 * 60_000).toISOString(),
      'good on a new card: the 10-minute learning step',
    );
    let [c] = await list(d);
    assert.equal(c.due, g.due);
    assert.equal(c.state, 'learning');
    assert.equal(c.reps, 1);
    assert.equal(c.lastReviewAt, t0.toISOString());
    assert.equal((await summary(d)).newCount, 0);

    // Graduate it a day later, then forget it: again → relearning, one lapse.
    const t1 = new Date(t0.getTime() + 86_400_000);
    const grad = (await reviewCard(d, card.cardNoteId, { rating: 'good', reviewedAt: t1.toISOString() })).json<any>();
    assert.equal(grad.state, 'review');
    assert.ok(grad.scheduledDays >= 1);
    const t2 = new Date(grad.due);
    const lapse = await reviewCard(d, card.cardNoteId, { rating: 'again', reviewedAt: t2.toISOString() });
    assert.equal(lapse.status, 200, lapse.text());
    const l = lapse.json<any>();
    assert.equal(l.state, 'relearning');
    assert.equal(l.reps, 3);
    assert.equal(l.lapses, 1);
    assert.equal(l.previousDue, grad.due);
    assert.ok(
      l.due > t2.toISOString() && l.due < new Date(t2.getTime() + 86_400_000).toISOString(),
      'again: minutes, not days',
    );
    [c] = await list(d);
    assert.equal(c.state, 'relearning');
    assert.equal(c.lapses, 1);
    assert.equal(c.reps, 3);
  });

  it('review: again on a new card → learning; a review before the last one → 422; unknown card → 404', async () => {
    const d = await deck();
    const [src] = await cards([{ title: 'Series' }]);
    const card = (await add(d, { cards: [{ sourceNoteId: src }] })).json<any>().cards[0];
    const a = (await reviewCard(d, card.cardNoteId, { rating: 'again' })).json<any>();
    assert.equal(a.state, 'learning');
    assert.equal(a.reps, 1);
    assert.equal(a.lapses, 0);
    assert.equal(
      a.due,
      new Date(Date.parse(a.reviewedAt) + 60_000).toISOString(),
      'again on a new card: the 1-minute step',
    );
    assert.equal((await list(d, { due: '1' })).length, 0, 'not due for a minute');
    assert.equal((await summary(d)).dueCount, 0);

    const before = digest();
    const past = await reviewCard(d, card.cardNoteId, { rating: 'good', reviewedAt: '2000-01-01T00:00:00Z' });
    assert.equal(past.status, 422);
    assert.equal(past.json<any>().error.code, 'INVALID_INPUT');
    const future = await reviewCard(d, card.cardNoteId, {
      rating: 'good',
      reviewedAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    assert.equal(future.status, 422);
    assert.match(future.json<any>().error.message, /future/);
    const unknown = await reviewCard(d, UNKNOWN, { rating: 'good' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json<any>().error.code, 'CARD_NOT_FOUND');
    const badRating = await reviewCard(d, card.cardNoteId, { rating: 'perfect' });
    assert.equal(badRating.status, 422);
    assert.equal(badRating.json<any>().error.code, 'INVALID_INPUT');
    const noConfirm = await t.client.raw('POST', `/decks/${d}/reviews`, {
      body: { cardNoteId: card.cardNoteId, rating: 'good' },
    });
    assert.equal(noConfirm.json<any>().error.code, 'CONFIRM_REQUIRED');
    assert.equal(digest(), before);
  });

  describe('refusals change nothing', () => {
    let d: string;
    let src: string;
    before(async () => {
      d = await deck('Refusals');
      [src] = await cards([{ title: 'Source', parts: [{ contentId: 'PART-R', kind: 'text' }] }]);
    });

    const cases: Array<[string, () => Record<string, unknown>, number, string]> = [
      [
        'both question fields',
        () => ({ cards: [{ sourceNoteId: src, question: 'Q {{cloze}}', questionContentId: 'PART-R' }] }),
        422,
        'INVALID_INPUT',
      ],
      ['51 cards', () => ({ cards: Array.from({ length: 51 }, () => ({ sourceNoteId: src })) }), 422, 'INVALID_INPUT'],
      ['no cards', () => ({ cards: [] }), 422, 'INVALID_INPUT'],
      ['missing sourceNoteId', () => ({ cards: [{ question: 'Q' }] }), 422, 'INVALID_INPUT'],
      [
        'a source listed twice',
        () => ({ cards: [{ sourceNoteId: src }, { sourceNoteId: src }] }),
        422,
        'INVALID_INPUT',
      ],
      [
        'unknown source (with a good one)',
        () => ({ cards: [{ sourceNoteId: src }, { sourceNoteId: UNKNOWN }] }),
        404,
        'NOTE_NOT_FOUND',
      ],
      [
        'content part of another card',
        () => ({ cards: [{ sourceNoteId: src, questionContentId: 'PART-A' }] }),
        422,
        'CONTENT_NOT_FOUND',
      ],
      [
        'unknown content part',
        () => ({ cards: [{ sourceNoteId: src, questionContentId: 'NOPE' }] }),
        422,
        'CONTENT_NOT_FOUND',
      ],
    ];
    for (const [label, body, status, code] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const before = digest();
        const res = await add(d, body());
        assert.equal(res.status, status, res.text());
        assert.equal(res.json<any>().error.code, code);
        assert.equal(digest(), before);
        assert.equal((await summary(d)).cardCount, 0);
      });
    }

    it('51 valid distinct sources → 422, none written; 50 → all written', async () => {
      const ids = await cards(Array.from({ length: 51 }, (_, i) => ({ title: `C${i}` })));
      const before = digest();
      const res = await add(d, { cards: ids.map((sourceNoteId) => ({ sourceNoteId })) });
      assert.equal(res.status, 422);
      assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
      assert.equal(digest(), before);
      const ok = await add(d, { cards: ids.slice(0, 50).map((sourceNoteId) => ({ sourceNoteId })) });
      assert.equal(ok.status, 200, ok.text());
      assert.equal((await summary(d)).cardCount, 50);
      assert.equal((await list(d)).length, 50);
    });

    it('a review card is not a source → 404 NOTE_NOT_FOUND naming it', async () => {
      const d2 = await deck();
      const [s] = await cards([{ title: 'S' }]);
      const reviewCardId = (await add(d2, { cards: [{ sourceNoteId: s }] })).json<any>().cards[0].cardNoteId;
      const before = digest();
      const res = await add(d, { cards: [{ sourceNoteId: reviewCardId }] });
      assert.equal(res.status, 404);
      const err = res.json<any>().error;
      assert.equal(err.code, 'NOTE_NOT_FOUND');
      assert.deepEqual(err.details.reviewCards, [reviewCardId]);
      assert.equal(digest(), before);
    });
  });

  it('study-set ids on every deck route → 422 NOT_A_DECK; unknown ids → 404 TOPIC_NOT_FOUND; nothing changes', async () => {
    const [src] = await cards([{ title: 'X' }]);
    const routes = (id: string): Array<[string, string, Record<string, unknown> | undefined]> => [
      ['GET', `/decks/${id}/cards`, undefined],
      ['POST', `/decks/${id}/cards`, { cards: [{ sourceNoteId: src }], confirm: true }],
      ['POST', `/decks/${id}/cards`, { cards: [{ sourceNoteId: src }] }],
      ['GET', `/decks/${id}/due`, undefined],
      ['POST', `/decks/${id}/reviews`, { cardNoteId: UNKNOWN, rating: 'good', confirm: true }],
      ['GET', `/decks/${id}/reviews`, undefined],
      ['POST', `/decks/${id}/open`, {}],
    ];
    const before = digest();
    const contextBefore = await t.client.context();
    for (const [id, status, code] of [
      [setId, 422, 'NOT_A_DECK'],
      [UNKNOWN, 404, 'TOPIC_NOT_FOUND'],
    ] as const) {
      for (const [method, path, body] of routes(id)) {
        const res = await t.client.raw(method as 'GET' | 'POST', path, { body });
        assert.equal(res.status, status, `${method} ${path}: ${res.text()}`);
        assert.equal(res.json<any>().error.code, code, path);
      }
    }
    assert.equal(digest(), before);
    assert.deepEqual((await t.client.context()).studySet ?? null, contextBefore.studySet ?? null);
  });

  it('POST /decks/{id}/open is accepted and GET /context then shows the deck with isDeck:true', async () => {
    const d = await t.client.createDeck('Open me');
    const res = await t.client.raw('POST', `/decks/${d.deckId}/open`, { body: {} });
    assert.equal(res.status, 200, res.text());
    assert.deepEqual(
      { ...res.json<any>(), bridgeApiVersion: undefined },
      { bridgeApiVersion: undefined, accepted: true, deckId: d.deckId },
    );
    const ctx = await t.client.context();
    assert.equal(ctx.studySet?.topicid, d.deckId);
    assert.equal(ctx.studySet?.title, 'Open me');
    assert.equal(ctx.studySet?.isDeck, true);
  });

  it('GET cards orders by due date, then creation', async () => {
    const d = await deck();
    const [a, b, c] = await cards([{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    const added = (await add(d, { cards: [a, b, c].map((sourceNoteId) => ({ sourceNoteId })) })).json<any>().cards;
    // b reviewed: due later than a and c, which keep their shared creation order.
    await reviewCard(d, added[1].cardNoteId, { rating: 'good' });
    const order = (await list(d)).map((x) => x.sourceNoteId);
    assert.equal(order[2], b);
    assert.deepEqual(order.slice(0, 2).sort(), [a, c].sort());
    assert.deepEqual((await list(d, { due: '1' })).map((x) => x.sourceNoteId).sort(), [a, c].sort());
    const res = await t.client.call('GET /decks/{id}/cards', { params: { id: d } });
    assert.equal(res.count, 3);
    assert.equal(res.dueCount, 2);
    assert.equal(res.deckId, d);
  });
});
