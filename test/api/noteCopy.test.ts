import assert from 'node:assert/strict';
import { treeViolations } from '../../src/server/domain/cards/treeInvariants';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card as newCard, type CardBody } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

describe('POST /notes/copy', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const card = (topicid: string, parentNoteId: string, title: string, extra: Partial<CardBody> = {}) =>
    newCard(t, topicid, { parentNoteId, title, ...extra });
  const tree = async (topicid: string) =>
    (await t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid } })).nodes;
  const batch = async (noteIds: string[]) =>
    (await t.client.call('POST /notes/batch-get', { body: { noteIds } })).notes;
  const copy = (body: Record<string, unknown>) => t.client.raw('POST', '/notes/copy', { body });
  const comment = (id: string, text: string) =>
    t.client.request('POST', `/notes/${id}/comments`, { body: { text, confirm: true } });

  /** Source set: root ─ A(text, #tag, colour) ─ A1 (links to A2 and to outside X), A2 ─ A21 ; X. Target set: root ─ T. */
  async function fixture(title: string) {
    const src = await t.client.createStudySet(`${title} source`);
    const dst = await t.client.createStudySet(`${title} target`);
    const root = src.rootNoteId!;
    const A = await card(src.topicid, root, 'A', { text: 'body of A', colorIndex: 5, fillIndex: 1 });
    const A1 = await card(src.topicid, A, 'A1');
    const A2 = await card(src.topicid, A, 'A2', { text: 'body of A2' });
    const A21 = await card(src.topicid, A2, 'A21');
    const X = await card(src.topicid, root, 'X');
    const T = await card(dst.topicid, dst.rootNoteId!, 'T');
    await t.client.request('POST', '/notes/hashtags', {
      body: { noteIds: [A, A21], operation: 'add', hashtags: ['Math/Algebra'], confirm: true },
    });
    await comment(A1, `studybridge://note/${A2}`);
    await comment(A1, `studybridge://note/${X}`);
    // An excerpt card's source anchor (as a bundle import writes it).
    await t.bridge.services.store.write((tx) =>
      tx.run('UPDATE notes SET source_bookmd5 = ?, source_page = 3, source_rect = ? WHERE noteid = ?', [
        '0123456789abcdef0123456789abcdef',
        '{"x":10,"y":20,"width":30,"height":40}',
        A2,
      ]),
    );
    return { src: src.topicid, srcRoot: root, dst: dst.topicid, dstRoot: dst.rootNoteId!, A, A1, A2, A21, X, T };
  }

  it('clone: the whole branch under the target in another set, independent, links inside the branch remapped', async () => {
    const f = await fixture('Clone');
    const res = await copy({ noteIds: [f.A], targetParentNoteId: f.T, mode: 'clone', confirm: true });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.equal(body.persisted, true);
    assert.deepEqual(body.skipped, []);
    assert.equal(body.copies.length, 1);
    const { sourceNoteId, newNoteId, cardCount } = body.copies[0];
    assert.deepEqual([sourceNoteId, cardCount], [f.A, 4]);

    const nodes = await tree(f.dst);
    assert.deepEqual(treeViolations(nodes, f.dstRoot), []);
    const sub = nodes.slice(nodes.findIndex((n) => n.noteid === newNoteId));
    assert.deepEqual(
      sub.map((n) => [n.title, n.level]),
      [
        ['A', 2],
        ['A1', 3],
        ['A2', 3],
        ['A21', 4],
      ],
    );
    assert.equal(sub[0].parent, f.T);
    const [a, a1, a2, a21] = sub.map((n) => n.noteid);
    assert.ok(![a, a1, a2, a21].some((id) => [f.A, f.A1, f.A2, f.A21].includes(id)));

    const [ca, ca1, ca2, ca21] = await batch([a, a1, a2, a21]);
    assert.deepEqual(
      ca.texts.map((x) => x.text),
      ['body of A'],
    );
    assert.deepEqual(ca.metadata, { colorIndex: 5, fillIndex: 1 });
    assert.deepEqual(ca.hashtags, ['Math/Algebra']);
    assert.deepEqual(ca21.hashtags, ['Math/Algebra']);
    assert.equal(ca.topicid, f.dst);
    assert.equal(ca.referenceOf, null);
    assert.deepEqual(ca2.sourceAnchor, {
      hasExcerpt: true,
      bookmd5: '0123456789abcdef0123456789abcdef',
      page: 3,
      rect: { x: 10, y: 20, width: 30, height: 40 },
      rects: [{ x: 10, y: 20, width: 30, height: 40 }],
    });
    // The link to A2 (inside the branch) now names A2's copy; the one to X (outside) still names X.
    assert.deepEqual(
      ca1.texts.map((x) => [x.index, x.text, x.kind]),
      [
        [1, `studybridge://note/${a2}`, 'link'],
        [2, `studybridge://note/${f.X}`, 'link'],
      ],
    );
    assert.deepEqual(new Set(ca1.links), new Set([a2, f.X]));
    assert.ok((await batch([f.X]))[0].links.includes(a1));

    // Independent: renaming the original leaves the clone alone.
    await t.client.request('POST', `/notes/${f.A}/title`, {
      body: { text: 'A renamed', expectedPrefix: 'A', confirm: true },
    });
    assert.equal((await batch([a]))[0].title, 'A');
    // The operation is logged on the target set only.
    const ops = t.bridge.services.store.all<any>("SELECT topicid, note_ids FROM operations WHERE kind = 'copy'");
    assert.deepEqual(
      ops.map((o) => [o.topicid, JSON.parse(o.note_ids).length]),
      [[f.dst, 4]],
    );
  });

  it('reference: each copy points at its original and reads its content', async () => {
    const f = await fixture('Reference');
    const res = await copy({ noteIds: [f.A2], targetParentNoteId: f.T, mode: 'reference', confirm: true });
    assert.equal(res.status, 200, res.text());
    const { newNoteId, cardCount } = res.json<any>().copies[0];
    assert.equal(cardCount, 2);
    const [child] = (await tree(f.dst)).filter((n) => n.parent === newNoteId);
    const [r2, r21] = await batch([newNoteId, child.noteid]);
    assert.deepEqual([r2.referenceOf, r21.referenceOf], [f.A2, f.A21]);
    assert.deepEqual(
      r2.texts.map((x) => x.text),
      ['body of A2'],
    );
    await t.client.request('POST', `/notes/${f.A2}/title`, {
      body: { text: 'A2 edited', expectedPrefix: 'A2', confirm: true },
    });
    assert.equal((await batch([newNoteId]))[0].title, 'A2 edited');
    // A reference of a reference points at the first original.
    const again = await copy({ noteIds: [newNoteId], targetParentNoteId: f.T, mode: 'reference', confirm: true });
    assert.equal((await batch([again.json<any>().copies[0].newNoteId]))[0].referenceOf, f.A2);
  });

  it('copies form; a card whose ancestor is also selected is skipped; copying under its own descendant copies the branch as it was', async () => {
    const f = await fixture('Skip');
    const res = await copy({
      copies: [
        { noteId: f.A, targetParentNoteId: f.A21, mode: 'clone' },
        { noteId: f.A2, targetParentNoteId: f.X, mode: 'clone' },
      ],
      confirm: true,
    });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.deepEqual(body.skipped, [{ noteid: f.A2, reason: 'covered_by_selected_ancestor' }]);
    assert.equal(body.copies.length, 1);
    assert.equal(body.copies[0].cardCount, 4);
    const nodes = await tree(f.src);
    assert.deepEqual(treeViolations(nodes, f.srcRoot), []);
    assert.deepEqual(
      nodes.filter((n) => n.parent === f.A21).map((n) => n.title),
      ['A'],
    );
    assert.equal(nodes.filter((n) => n.parent === f.X).length, 0);
    assert.equal(nodes.length, 6 + 4);
  });

  it('dry-run answers wouldCopy and skipped, and changes nothing', async () => {
    const f = await fixture('Dry');
    const before = storeDigest(t.bridge.services.store);
    const res = await copy({ noteIds: [f.A, f.A21, f.X], targetParentNoteId: f.T, mode: 'reference' });
    assert.equal(res.status, 422);
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.deepEqual(err.details.wouldCopy, [
      { noteid: f.A, descendants: 3, mode: 'reference', targetParentNoteId: f.T },
      { noteid: f.X, descendants: 0, mode: 'reference', targetParentNoteId: f.T },
    ]);
    assert.deepEqual(err.details.skipped, [{ noteid: f.A21, reason: 'covered_by_selected_ancestor' }]);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  describe('refusals change nothing', () => {
    let f: Awaited<ReturnType<typeof fixture>>;
    let deckId: string;
    before(async () => {
      f = await fixture('Refusals');
      deckId = (await t.client.call('POST /decks', { body: { title: 'A deck', confirm: true } })).deckId;
    });
    const missing = '00000000-0000-4000-8000-0000000000AA';
    const cases: Array<[string, () => Record<string, unknown>, number, string]> = [
      [
        'an unknown source',
        () => ({ noteIds: [missing], targetParentNoteId: f.T, mode: 'clone' }),
        404,
        'NOTE_NOT_FOUND',
      ],
      [
        'an unknown target',
        () => ({ noteIds: [f.A], targetParentNoteId: missing, mode: 'clone' }),
        404,
        'NOTE_NOT_FOUND',
      ],
      [
        'a deck id as target',
        () => ({ noteIds: [f.A], targetParentNoteId: deckId, mode: 'clone' }),
        404,
        'NOTE_NOT_FOUND',
      ],
      [
        'targets in two sets',
        () => ({
          copies: [
            { noteId: f.A1, targetParentNoteId: f.T },
            { noteId: f.X, targetParentNoteId: f.A },
          ],
          mode: 'clone',
        }),
        422,
        'NOTES_IN_DIFFERENT_SETS',
      ],
      ['no mode', () => ({ noteIds: [f.A], targetParentNoteId: f.T }), 422, 'INVALID_INPUT'],
      ['an unknown mode', () => ({ noteIds: [f.A], targetParentNoteId: f.T, mode: 'deep' }), 422, 'INVALID_INPUT'],
      [
        '51 roots',
        () => ({ noteIds: Array.from({ length: 51 }, () => f.A1), targetParentNoteId: f.T, mode: 'clone' }),
        422,
        'INVALID_INPUT',
      ],
      [
        '51 copies',
        () => ({
          copies: Array.from({ length: 51 }, () => ({ noteId: f.A1, targetParentNoteId: f.T })),
          mode: 'clone',
        }),
        422,
        'INVALID_INPUT',
      ],
      [
        'both body forms',
        () => ({
          noteIds: [f.A],
          targetParentNoteId: f.T,
          mode: 'clone',
          copies: [{ noteId: f.X, targetParentNoteId: f.T }],
        }),
        422,
        'INVALID_INPUT',
      ],
    ];
    for (const [label, body, status, code] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const before = storeDigest(t.bridge.services.store);
        const res = await copy({ ...body(), confirm: true });
        assert.equal(res.status, status, res.text());
        assert.equal(res.json<any>().error.code, code);
        assert.equal(storeDigest(t.bridge.services.store), before);
      });
    }

    it('a deleted (hidden) source → 404, nothing written', async () => {
      await t.bridge.services.store.write((tx) => tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [f.X]));
      const before = storeDigest(t.bridge.services.store);
      const res = await copy({ noteIds: [f.X], targetParentNoteId: f.T, mode: 'clone', confirm: true });
      assert.equal(res.status, 404);
      assert.equal(res.json<any>().error.code, 'NOTE_NOT_FOUND');
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  });
});
