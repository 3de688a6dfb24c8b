import assert from 'node:assert/strict';
import type { YankiConnect as YankiConnectType } from 'yanki-connect' with { 'resolution-mode': 'import' };
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { libraryDigest, untilState } from './approvalsFixture';
import { post } from '../helpers/ankiConnectPost';

/** AnkiConnect's card, tag, statistics, note-type and media actions through yanki-connect, and their refusals. */

async function yanki(port: number, key: string | undefined): Promise<YankiConnectType> {
  const { YankiConnect } = await import('yanki-connect');
  return new YankiConnect({ host: 'http://127.0.0.1', port, key, autoLaunch: false });
}

describe('AnkiConnect: cards, tags, statistics, note types, media (yanki-connect)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let port: number;
  let client: YankiConnectType;
  let key: string;
  let notes: number[];

  before(async () => {
    t = await startBridge({ ankiConnect: { port: 0 }, approvals: 'destructive' });
    port = t.bridge.ankiConnectPort!;
    key = (await t.bridge.services.tokens.issue('anki-mcp', 'write')).token;
    client = await yanki(port, key);
    notes = (await client.note.addNotes({
      notes: [
        { deckName: 'French', modelName: 'Basic', fields: { Front: 'le chat', Back: 'the cat' }, tags: ['fr::nouns'] },
        { deckName: 'French', modelName: 'Basic', fields: { Front: 'le chien', Back: 'the dog' }, tags: ['fr::nouns'] },
        { deckName: 'French', modelName: 'Basic', fields: { Front: 'parler', Back: 'to speak' }, tags: ['verbs'] },
      ],
    })) as unknown as number[];
    assert.equal(notes.filter(Number.isInteger).length, 3);
  });
  after(() => t.stop());

  it('apiReflect lists exactly the actions served; an unserved one is left out and answers "unsupported action"', async () => {
    const all = await client.miscellaneous.apiReflect({ scopes: ['actions'], actions: null });
    for (const a of ['findCards', 'cardsInfo', 'addTags', 'deleteNotes', 'apiReflect', 'multi', 'addNote'])
      assert.ok(all.actions.includes(a), a);
    assert.ok(!all.actions.includes('guiDeckOverview'));
    const asked = await client.miscellaneous.apiReflect({
      scopes: ['actions'],
      actions: ['findCards', 'guiDeckOverview'],
    });
    assert.deepEqual(asked, { scopes: ['actions'], actions: ['findCards'] });
    const res = await post(port, { action: 'guiDeckOverview', version: 6, key, params: {} });
    assert.deepEqual([res.status, res.json], [200, { result: null, error: 'unsupported action' }]);
  });

  it('findCards and cardsInfo: the review cards of the notes found, with their deck, fields and scheduling', async () => {
    const cards = await client.card.findCards({ query: 'deck:French' });
    assert.equal(cards.length, 3);
    const info = await client.card.cardsInfo({ cards: [cards[0], 12345] });
    assert.equal(info.length, 2);
    const first = info[0] as any;
    assert.equal(first.cardId, cards[0]);
    assert.equal(first.deckName, 'French');
    assert.equal(first.modelName, 'Basic');
    assert.equal(first.fields.Front.value, 'le chat');
    assert.equal(first.note, notes[0]);
    assert.deepEqual([first.type, first.queue, first.interval, first.reps], [0, 0, 0, 0]);
    assert.deepEqual(info[1], {});
    assert.deepEqual(await client.card.getEaseFactors({ cards: [cards[0]] }), [2500]);
    assert.deepEqual(await client.card.getIntervals({ cards: [cards[0]] }), [0]);
    const notesInfo = await client.note.notesInfo({ notes: [notes[0]] });
    assert.deepEqual((notesInfo[0] as any).cards, [cards[0]]);
  });

  it('getDeckStats, getReviewsOfCards and cardReviews read the deck and the review log', async () => {
    const cards = await client.card.findCards({ query: 'deck:French' });
    const deckId = t.bridge.services.decks.list().find((d) => d.title === 'French')!.deckId;
    const cardNoteId = (await t.client.cards.deckCards(deckId)).cards[0].cardNoteId;
    await t.client.request('POST', `/decks/${deckId}/reviews`, {
      body: { cardNoteId, rating: 'good', confirm: true },
    });
    const stats = Object.values(await client.deck.getDeckStats({ decks: ['French'] })) as any[];
    assert.equal(stats.length, 1);
    assert.equal(stats[0].name, 'French');
    assert.equal(stats[0].total_in_deck, 3);
    assert.equal(stats[0].new_count, 2);
    const reviewed = (await client.card.cardsInfo({ cards })).find((c: any) => c.reps === 1) as any;
    const logs = (await client.statistic.getReviewsOfCards({ cards: [String(reviewed.cardId)] as never })) as any;
    assert.equal(logs[String(reviewed.cardId)].length, 1);
    assert.equal(logs[String(reviewed.cardId)][0].ease, 3);
    const rows = (await client.statistic.cardReviews({ deck: 'French', startID: 0 })) as any[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0][1], reviewed.cardId);
    assert.equal(rows[0][3], 3);
    const bad = await post(port, { action: 'cardReviews', version: 6, key, params: { deck: 'Nope', startID: 0 } });
    assert.deepEqual(bad.json, { result: null, error: 'deck was not found: Nope' });
  });

  it("tags: getTags, addTags, removeTags, updateNoteTags, replaceTags change the cards' hashtags", async () => {
    assert.deepEqual(await client.note.getTags(), ['fr::nouns', 'verbs']);
    await client.note.addTags({ notes: [notes[2]], tags: 'fr::verbs regular' });
    const tagsOf = async (id: number) => ((await client.note.notesInfo({ notes: [id] }))[0] as any).tags.sort();
    assert.deepEqual(await tagsOf(notes[2]), ['fr::verbs', 'regular', 'verbs']);
    await client.note.removeTags({ notes: [notes[2]], tags: 'verbs regular' });
    assert.deepEqual(await tagsOf(notes[2]), ['fr::verbs']);
    await client.note.updateNoteTags({ note: notes[1], tags: ['animals', 'fr::nouns'] });
    assert.deepEqual(await tagsOf(notes[1]), ['animals', 'fr::nouns']);
    await client.note.replaceTags({
      notes: [notes[0], notes[1]],
      tag_to_replace: 'fr::nouns',
      replace_with_tag: 'nouns',
    });
    assert.deepEqual(await tagsOf(notes[0]), ['nouns']);
    assert.deepEqual(await tagsOf(notes[1]), ['animals', 'nouns']);
    const unknown = await post(port, { action: 'addTags', version: 6, key, params: { notes: [1], tags: 'x' } });
    assert.deepEqual(unknown.json, { result: null, error: 'note was not found: 1' });
    const bad = await post(port, { action: 'addTags', version: 6, key, params: { notes: 'all', tags: 'x' } });
    assert.deepEqual(bad.json, { result: null, error: 'notes must be a list' });
  });

  it('note types and media: modelStyling, modelTemplates, getMediaFilesNames, deleteMediaFile, sync', async () => {
    assert.match((await client.model.modelStyling({ modelName: 'Basic' })).css, /\.card/);
    assert.deepEqual(Object.keys(await client.model.modelTemplates({ modelName: 'Cloze' })), ['Cloze']);
    const missing = await post(port, { action: 'modelStyling', version: 6, key, params: { modelName: 'Nope' } });
    assert.deepEqual(missing.json, { result: null, error: 'model was not found: Nope' });
    // Files named as pictures must begin as those pictures do (their signatures; the rest is not read).
    await client.media.storeMediaFile({
      filename: 'cat.png',
      data: Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('rest')]).toString('base64'),
    });
    await client.media.storeMediaFile({ filename: 'dog.jpg', data: Buffer.from('ffd8ff00', 'hex').toString('base64') });
    assert.deepEqual(await client.media.getMediaFilesNames({ pattern: '*.png' }), ['cat.png']);
    await client.media.deleteMediaFile({ filename: 'cat.png' });
    assert.deepEqual(await client.media.getMediaFilesNames({ pattern: '*' }), ['dog.jpg']);
    const escape = await post(port, { action: 'deleteMediaFile', version: 6, key, params: { filename: '../secret' } });
    assert.match(String(escape.json.error), /invalid media file name/);
    assert.equal(await client.miscellaneous.sync(), 'not needed: the library is local' as never);
  });

  it('suspend, unsuspend, areSuspended set cards aside; answerCards grades as POST /decks/{id}/reviews with the token as actor', async () => {
    const [a, b] = (await client.card.cardsInfo({ cards: await client.card.findCards({ query: 'deck:French' }) }))
      .filter((c: any) => c.reps === 0)
      .map((c: any) => c.cardId as number);
    assert.equal(await client.card.suspend({ cards: [a] }), true);
    assert.equal(await client.card.suspend({ cards: [a] }), false, 'already suspended: nothing changed');
    assert.deepEqual(await client.card.areSuspended({ cards: [a, b, 42] }), [true, false, null]);
    const deckId = t.bridge.services.decks.list().find((d) => d.title === 'French')!.deckId;
    const listed = (await t.client.cards.deckCards(deckId)).cards as any[];
    assert.equal(listed.filter((c) => c.suspended).length, 1);
    assert.equal(await client.card.unsuspend({ cards: [a] }), true);
    assert.deepEqual(await client.card.areSuspended({ cards: [a] }), [false]);

    assert.deepEqual(
      await client.card.answerCards({
        answers: [
          { cardId: b, ease: 4 },
          { cardId: 42, ease: 3 },
        ],
      }),
      [true, false],
    );
    const log = t.bridge.services.store.get<{ rating: number; actor: string; token_id: string | null }>(
      'SELECT rating, actor, token_id FROM review_logs ORDER BY reviewed_at DESC, rowid DESC LIMIT 1',
    )!;
    assert.equal(log.rating, 4);
    assert.equal(log.actor, 'agent');
    assert.ok(log.token_id);
    assert.equal(((await client.card.cardsInfo({ cards: [b] }))[0] as any).reps, 1);
    const bad = await post(port, {
      action: 'answerCards',
      version: 6,
      key,
      params: { answers: [{ cardId: b, ease: 9 }] },
    });
    assert.deepEqual(bad.json, { result: null, error: 'ease must be 1 (again), 2 (hard), 3 (good) or 4 (easy)' });
  });

  it('changeDeck moves review cards (schedule and log with them) to another deck, made when missing', async () => {
    const cards = await client.card.findCards({ query: 'deck:French' });
    const reviewed = (await client.card.cardsInfo({ cards })).find((c: any) => c.reps > 0) as any;
    await client.deck.changeDeck({ cards: [reviewed.cardId], deck: 'French::Reviewed' });
    assert.deepEqual(await client.card.findCards({ query: '"deck:French::Reviewed"' }), [reviewed.cardId]);
    const moved = (await client.card.cardsInfo({ cards: [reviewed.cardId] }))[0] as any;
    assert.deepEqual([moved.deckName, moved.reps], ['French::Reviewed', reviewed.reps]);
    const rows = (await client.statistic.cardReviews({ deck: 'French::Reviewed', startID: 0 })) as any[];
    assert.ok(rows.length >= 1);
    const bad = await post(port, { action: 'changeDeck', version: 6, key, params: { cards: [reviewed.cardId] } });
    assert.deepEqual(bad.json, { result: null, error: 'deck name is missing' });
  });

  it("deleteNotes by an agent waits for the person's approval; allowed, the note is gone", async () => {
    const before = libraryDigest(t.bridge.services.store);
    const res = await post(port, { action: 'deleteNotes', version: 6, key, params: { notes: [notes[2]] } });
    assert.equal(res.json.result, null);
    assert.match(String(res.json.error), /waits for the person's approval \((apr_[0-9a-f]+)/);
    assert.equal(libraryDigest(t.bridge.services.store), before, 'nothing deleted yet');
    const approvalId = /(apr_[0-9a-f]+)/.exec(String(res.json.error))![1];
    await t.bridge.services.approvals.decide(approvalId, 'allow', 'owner');
    const done = await untilState(t.owner, approvalId, 'allowed');
    assert.ok(done);
    for (;;) {
      if (!(await client.note.findNotes({ query: 'deck:French' })).includes(notes[2])) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual((await client.note.notesInfo({ notes: [notes[2]] }))[0], {});
  });

  it('refusals: a bad key (401), a read token cannot delete or tag (403), bad params answer an error; nothing changes', async () => {
    const readKey = (await t.bridge.services.tokens.issue('reader', 'read')).token;
    // Token use is stamped on the token's row: the library is the rest.
    const library = () =>
      libraryDigest(t.bridge.services.store)
        .split('\n')
        .filter((l) => !l.startsWith('agent_tokens='))
        .join('\n');
    const before = library();
    const badKey = await post(port, { action: 'findCards', version: 6, key: 'nope', params: { query: '' } });
    assert.equal(badKey.status, 401);
    assert.equal(badKey.json.result, null);
    for (const action of ['deleteNotes', 'addTags', 'deleteMediaFile', 'suspend', 'answerCards', 'changeDeck']) {
      const r = await post(port, { action, version: 6, key: readKey, params: { notes: [notes[0]], tags: 'x' } });
      assert.equal(r.status, 403, action);
    }
    const reader = await yanki(port, readKey);
    assert.equal((await reader.card.findCards({ query: 'deck:French' })).length, 2);
    for (const [action, params] of [
      ['cardsInfo', { cards: 'x' }],
      ['findCards', {}],
      ['getDeckStats', { decks: 7 }],
      ['updateNoteTags', { note: notes[0], tags: 7 }],
      ['deleteNotes', { notes: [1] }],
    ] as const) {
      const r = await post(port, { action, version: 6, key, params });
      assert.equal(r.status, 200, action);
      assert.equal(r.json.result, null, action);
      assert.ok(r.json.error && !/internal error/.test(r.json.error), `${action}: ${r.json.error}`);
    }
    assert.equal(library(), before);
  });
});
