import assert from 'node:assert/strict';
import { parseNoteLink } from '../../src/server/domain/cards/noteLinks';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { UNKNOWN_ID, card, newSet, operations, post, read, refused } from './noteEditsFixture';

const comments = (n: any) => n.texts.filter((x: any) => x.index > 0).map((x: any) => [x.index, x.text, x.kind]);

describe('parseNoteLink (pure)', () => {
  const id = '0A1B2C3D-0000-4000-8000-00000000BEEF';
  it('a whole-line link, trimmed, any case → the id in upper case', () =>
    assert.equal(parseNoteLink(`  studybridge://note/${id.toLowerCase()}\n`), id));
  for (const text of [
    `see studybridge://note/${id}`,
    `studybridge://note/${id} and more`,
    `studybridge://note/${id}\nstudybridge://note/${id}`,
    'studybridge://note/not-a-uuid',
    `marginnote4app://note/${id}`,
  ]) {
    it(`not a link: ${JSON.stringify(text).slice(0, 50)}`, () => assert.equal(parseNoteLink(text), null));
  }
});

describe('POST /notes/{id}/comments, /comments/{index}, /comments/{index}/delete', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  before(async () => {
    t = await startBridge();
    setId = (await newSet(t, 'Comments set')).topicid;
  });
  after(() => t.stop());

  const append = (id: string, text: string, as?: 'agent' | 'person') => post(t, `/notes/${id}/comments`, { text }, as);

  it('appends at index max+1 after the body; batch-get reads them in order; one comment operation each, by the actor', async () => {
    const a = await card(t, setId, { title: 'Commented', text: 'Body' });
    const r1 = await append(a, 'First remark', 'person');
    assert.deepEqual([r1.persisted, r1.noteid, r1.index, r1.kind, r1.linked], [true, a, 1, 'text', undefined]);
    const r2 = await append(a, 'Second remark');
    assert.equal(r2.index, 2);
    const card1 = (await read(t, a))[a];
    assert.deepEqual(comments(card1), [
      [1, 'First remark', 'text'],
      [2, 'Second remark', 'text'],
    ]);
    assert.equal(card1.texts[0].text, 'Body');
    const ops = operations(t).slice(-2);
    assert.deepEqual(
      ops.map((o) => [o.kind, o.actor, o.noteIds]),
      [
        ['comment', 'user', [a]],
        ['comment', 'agent', [a]],
      ],
    );
  });

  it('a card without a body gets comment 1 (index 0 stays the body)', async () => {
    const a = await card(t, setId, { title: 'Title only' });
    assert.equal((await append(a, 'Only comment')).index, 1);
    assert.deepEqual(
      (await read(t, a))[a].texts.map((x: any) => x.index),
      [1],
    );
  });

  it('a whole-line studybridge://note/<id> becomes a link: kind link, linked, links both ways in batch-get', async () => {
    const a = await card(t, setId, { title: 'Linker' });
    const b = await card(t, setId, { title: 'Linked' });
    const res = await append(a, `  studybridge://note/${b.toLowerCase()}  `);
    assert.deepEqual([res.kind, res.linked, res.index], ['link', b, 1]);
    const cards = await read(t, a, b);
    assert.deepEqual(comments(cards[a]), [[1, `studybridge://note/${b}`, 'link']]);
    assert.deepEqual([cards[a].links, cards[b].links], [[b], [a]]);
  });

  it('a link inside a sentence stays plain text and links nothing', async () => {
    const a = await card(t, setId, { title: 'Mention' });
    const b = await card(t, setId, { title: 'Mentioned' });
    const res = await append(a, `see studybridge://note/${b}`);
    assert.equal(res.kind, 'text');
    assert.deepEqual((await read(t, a))[a].links, []);
  });

  it("a link to another set's card is allowed", async () => {
    const other = (await newSet(t, 'Far set')).topicid;
    const a = await card(t, setId, { title: 'Here' });
    const b = await card(t, other, { title: 'There' });
    await append(a, `studybridge://note/${b}`);
    assert.deepEqual((await read(t, b))[b].links, [a]);
  });

  it('edit: replaces the comment with the right expectedPrefix; a changed comment → 409 COMMENT_CHANGED with actualPrefix', async () => {
    const a = await card(t, setId, { title: 'Edits' });
    const long = 'A long remark about orthogonal projections onto subspaces.';
    await append(a, long);
    const err = await refused(
      t,
      `/notes/${a}/comments/1`,
      { text: 'x', expectedPrefix: 'A long remark' },
      409,
      'COMMENT_CHANGED',
    );
    assert.deepEqual([err.details.actualPrefix, err.details.index, err.details.noteid], [long.slice(0, 32), 1, a]);
    const res = await post(t, `/notes/${a}/comments/1`, {
      text: 'Short remark',
      expectedPrefix: err.details.actualPrefix,
    });
    assert.deepEqual([res.persisted, res.index, res.kind], [true, 1, 'text']);
    assert.deepEqual(comments((await read(t, a))[a]), [[1, 'Short remark', 'text']]);
    assert.equal(operations(t).at(-1)!.kind, 'comment');
  });

  it('editing a link comment to another card moves the link (linked, unlinked); editing it into text removes it', async () => {
    const a = await card(t, setId, { title: 'Relinker' });
    const b = await card(t, setId, { title: 'B' });
    const c = await card(t, setId, { title: 'C' });
    await append(a, `studybridge://note/${b}`);
    const r1 = await post(t, `/notes/${a}/comments/1`, {
      text: `studybridge://note/${c}`,
      expectedPrefix: `studybridge://note/${b}`,
    });
    assert.deepEqual([r1.kind, r1.linked, r1.unlinked], ['link', c, b]);
    let cards = await read(t, a, b, c);
    assert.deepEqual([cards[a].links, cards[b].links, cards[c].links], [[c], [], [a]]);
    const r2 = await post(t, `/notes/${a}/comments/1`, {
      text: 'no link any more',
      expectedPrefix: `studybridge://note/${c}`,
    });
    assert.deepEqual([r2.kind, r2.unlinked], ['text', c]);
    cards = await read(t, a, c);
    assert.deepEqual([cards[a].links, cards[c].links], [[], []]);
  });

  it('delete: removes the comment, later comments move up (indexes stay 1..N)', async () => {
    const a = await card(t, setId, { title: 'Deleter', text: 'Body stays' });
    for (const s of ['one', 'two', 'three']) await append(a, s);
    const res = await post(t, `/notes/${a}/comments/2/delete`, { expectedPrefix: 'two' });
    assert.deepEqual([res.persisted, res.deleted, res.renumbered, res.commentCount], [true, 2, 1, 2]);
    const n = (await read(t, a))[a];
    assert.deepEqual(comments(n), [
      [1, 'one', 'text'],
      [2, 'three', 'text'],
    ]);
    assert.equal(n.texts[0].text, 'Body stays');
    assert.equal((await append(a, 'four')).index, 3);
  });

  it('deleting a link comment removes the link both ways; a second link comment to the same card keeps it', async () => {
    const a = await card(t, setId, { title: 'Double linker' });
    const b = await card(t, setId, { title: 'Target' });
    await append(a, `studybridge://note/${b}`);
    await append(a, `studybridge://note/${b}`);
    const r1 = await post(t, `/notes/${a}/comments/1/delete`, {
      expectedPrefix: `studybridge://note/${b}`.slice(0, 32),
    });
    assert.equal(r1.unlinked, undefined);
    assert.deepEqual((await read(t, b))[b].links, [a], 'still linked by the remaining comment');
    const r2 = await post(t, `/notes/${a}/comments/1/delete`, { expectedPrefix: `studybridge://note/${b}` });
    assert.equal(r2.unlinked, b);
    const cards = await read(t, a, b);
    assert.deepEqual([cards[a].links, cards[b].links, comments(cards[a])], [[], [], []]);
  });

  it('unknown body fields → ignoredFields', async () => {
    const a = await card(t, setId, { title: 'Extras' });
    const res = await post(t, `/notes/${a}/comments`, { text: 'hi', index: 4 });
    assert.deepEqual(res.ignoredFields, ['index']);
  });

  describe('refusals (nothing written)', () => {
    let a: string;
    before(async () => {
      a = await card(t, setId, { title: 'Refusals', text: 'Body' });
      await append(a, 'Only comment');
    });
    it('index 0 (the body) → 422 naming the text route', async () => {
      const e1 = await refused(
        t,
        `/notes/${a}/comments/0`,
        { text: 'x', expectedPrefix: 'Body' },
        422,
        'INVALID_INPUT',
      );
      assert.match(e1.message, /\/text/);
      await refused(t, `/notes/${a}/comments/0/delete`, { expectedPrefix: 'Body' }, 422, 'INVALID_INPUT');
    });
    it('an index beyond N → 404 COMMENT_NOT_FOUND listing the indexes', async () => {
      const err = await refused(
        t,
        `/notes/${a}/comments/2`,
        { text: 'x', expectedPrefix: '' },
        404,
        'COMMENT_NOT_FOUND',
      );
      assert.deepEqual(err.details.indexes, [1]);
      await refused(t, `/notes/${a}/comments/2/delete`, { expectedPrefix: '' }, 404, 'COMMENT_NOT_FOUND');
    });
    for (const bad of ['-1', '1.5', 'first']) {
      it(`index ${bad} → 422 INVALID_INPUT`, () =>
        refused(t, `/notes/${a}/comments/${bad}`, { text: 'x', expectedPrefix: '' }, 422, 'INVALID_INPUT'));
    }
    it('delete with a changed prefix → 409 COMMENT_CHANGED', async () => {
      const err = await refused(t, `/notes/${a}/comments/1/delete`, { expectedPrefix: 'Only' }, 409, 'COMMENT_CHANGED');
      assert.equal(err.details.actualPrefix, 'Only comment');
    });
    it('missing expectedPrefix on edit and delete → 422', async () => {
      await refused(t, `/notes/${a}/comments/1`, { text: 'x' }, 422, 'INVALID_INPUT');
      await refused(t, `/notes/${a}/comments/1/delete`, {}, 422, 'INVALID_INPUT');
    });
    it('empty or blank text → 422', async () => {
      await refused(t, `/notes/${a}/comments`, { text: '' }, 422, 'INVALID_INPUT');
      await refused(t, `/notes/${a}/comments`, { text: '  \n ' }, 422, 'INVALID_INPUT');
      await refused(t, `/notes/${a}/comments/1`, { text: ' ', expectedPrefix: 'Only comment' }, 422, 'INVALID_INPUT');
    });
    it('a link to an unknown card → 404 NOTE_NOT_FOUND; to itself → 422', async () => {
      await refused(t, `/notes/${a}/comments`, { text: `studybridge://note/${UNKNOWN_ID}` }, 404, 'NOTE_NOT_FOUND');
      await refused(t, `/notes/${a}/comments`, { text: `studybridge://note/${a}` }, 422, 'INVALID_INPUT');
      await refused(
        t,
        `/notes/${a}/comments/1`,
        { text: `studybridge://note/${UNKNOWN_ID}`, expectedPrefix: 'Only comment' },
        404,
        'NOTE_NOT_FOUND',
      );
    });
    it('an unknown or hidden card → 404 NOTE_NOT_FOUND', async () => {
      await refused(t, `/notes/${UNKNOWN_ID}/comments`, { text: 'x' }, 404, 'NOTE_NOT_FOUND');
      await refused(t, `/notes/${UNKNOWN_ID}/comments/1`, { text: 'x', expectedPrefix: '' }, 404, 'NOTE_NOT_FOUND');
      const h = await card(t, setId, { title: 'Hidden' });
      await append(h, 'c');
      await t.bridge.services.store.write((tx) => tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [h]));
      await refused(t, `/notes/${h}/comments/1/delete`, { expectedPrefix: 'c' }, 404, 'NOTE_NOT_FOUND');
    });
    it('without confirm → 422 CONFIRM_REQUIRED', () =>
      refused(t, `/notes/${a}/comments`, { text: 'x' }, 422, 'CONFIRM_REQUIRED', false));
    it('after all refusals the card is as it was', async () => {
      assert.deepEqual(comments((await read(t, a))[a]), [[1, 'Only comment', 'text']]);
    });
  });
});
