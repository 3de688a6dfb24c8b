import assert from 'node:assert/strict';
import { treeViolations } from '../../src/server/domain/cards/treeInvariants';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { card as newCard, type TreeNode } from '../helpers/libraryFixtures';

describe('POST /notes/delete', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const card = (topicid: string, parentNoteId: string, title: string, text?: string) =>
    newCard(t, topicid, { parentNoteId, title, text });
  const tree = async (topicid: string) =>
    (await t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid } })).nodes;
  const kids = (nodes: TreeNode[], parent: string) => nodes.filter((n) => n.parent === parent).map((n) => n.title);
  const batch = async (noteIds: string[]) => t.client.call('POST /notes/batch-get', { body: { noteIds } });
  const del = (body: Record<string, unknown>) => t.client.raw('POST', '/notes/delete', { body });

  /** root ─ P ─ x, D ─ (D1 ─ D11, D2), y ; Q */
  async function fixture(title: string) {
    const set = await t.client.createStudySet(title);
    const root = set.rootNoteId!;
    const P = await card(set.topicid, root, 'P');
    const x = await card(set.topicid, P, 'x');
    const D = await card(set.topicid, P, 'D', 'body of D');
    const D1 = await card(set.topicid, D, 'D1');
    const D11 = await card(set.topicid, D1, 'D11');
    const D2 = await card(set.topicid, D, 'D2');
    const y = await card(set.topicid, P, 'y');
    const Q = await card(set.topicid, root, 'Q');
    return { topicid: set.topicid, root, P, x, D, D1, D11, D2, y, Q };
  }

  it("children take the deleted card's place among its siblings; the card is gone", async () => {
    const f = await fixture('Delete one');
    const res = await del({ noteIds: [f.D], confirm: true });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.equal(body.persisted, true);
    assert.equal(body.trashEnabled, false);
    assert.deepEqual(body.deleted, [
      { noteid: f.D, outcome: 'deleted', orphanedChildren: 2, descendants: 3, childrenReattachedTo: 'grandparent' },
    ]);
    const nodes = await tree(f.topicid);
    assert.deepEqual(kids(nodes, f.P), ['x', 'D1', 'D2', 'y']);
    assert.deepEqual(kids(nodes, f.D1), ['D11']);
    assert.deepEqual(treeViolations(nodes, f.root), []);
    const read = await batch([f.D, f.D1]);
    assert.deepEqual(read.notFound, [f.D]);
    assert.equal(read.notes[0].parent, f.P);
    assert.equal(t.bridge.services.store.get('SELECT 1 AS x FROM note_texts WHERE noteid = ?', [f.D]), undefined);
    const hits = await t.client.call('GET /search', { query: { q: 'body', scope: 'notes' } });
    assert.ok(!JSON.stringify(hits).includes(f.D));
  });

  it('a card and its child deleted together: grandchildren go up to the nearest surviving ancestor', async () => {
    const f = await fixture('Delete nested');
    const res = await del({ noteIds: [f.D1, f.D], confirm: true });
    assert.equal(res.status, 200, res.text());
    assert.deepEqual(
      res.json<any>().deleted.map((d: any) => [d.noteid, d.orphanedChildren, d.descendants]),
      [
        [f.D1, 1, 1],
        [f.D, 1, 3],
      ],
    );
    const nodes = await tree(f.topicid);
    assert.deepEqual(kids(nodes, f.P), ['x', 'D11', 'D2', 'y']);
    assert.deepEqual(treeViolations(nodes, f.root), []);
    const ops = t.bridge.services.store.all<any>(
      "SELECT note_ids FROM operations WHERE topicid = ? AND kind = 'delete'",
      [f.topicid],
    );
    assert.deepEqual(
      ops.map((o) => JSON.parse(o.note_ids)),
      [[f.D1, f.D]],
    );
  });

  it('a card used by a review deck is hidden: the deck card stays with sourceAlive:false', async () => {
    const f = await fixture('Delete deck source');
    const deck = await t.client.call('POST /decks', { body: { title: 'Deck of D2', confirm: true } });
    await t.client.request('POST', `/decks/${deck.deckId}/cards`, {
      body: { cards: [{ sourceNoteId: f.D2 }], confirm: true },
    });
    const res = await del({ noteIds: [f.D2, f.x], confirm: true });
    assert.equal(res.status, 200, res.text());
    assert.deepEqual(
      res.json<any>().deleted.map((d: any) => [d.noteid, d.outcome]),
      [
        [f.D2, 'hidden'],
        [f.x, 'deleted'],
      ],
    );
    assert.deepEqual((await batch([f.D2])).notFound, [f.D2]);
    assert.ok(!(await tree(f.topicid)).some((n) => n.noteid === f.D2));
    const cards = await t.client.call('GET /decks/{id}/cards', { params: { id: deck.deckId } });
    assert.equal(cards.cards.length, 1);
    assert.equal(cards.cards[0].sourceAlive, false);
    assert.equal(t.bridge.services.store.get<any>('SELECT hidden FROM notes WHERE noteid = ?', [f.D2]).hidden, 1);
    assert.equal(t.bridge.services.store.get('SELECT 1 AS x FROM notes WHERE noteid = ?', [f.x]), undefined);
  });

  it('reference copies of a deleted original become independent cards keeping its content', async () => {
    const f = await fixture('Delete original');
    const copied = await t.client.call('POST /notes/copy', {
      body: { noteIds: [f.D2], targetParentNoteId: f.Q, mode: 'reference', confirm: true },
    });
    const copyId = copied.copies[0].newNoteId;
    await t.client.request('POST', `/notes/${f.D2}/text`, {
      body: { text: 'shared body', expectedPrefix: '', confirm: true },
    });
    assert.equal((await del({ noteIds: [f.D2], confirm: true })).status, 200);
    const [c] = (await batch([copyId])).notes;
    assert.equal(c.referenceOf, null);
    assert.equal(c.title, 'D2');
    assert.deepEqual(
      c.texts.map((x) => [x.text, x.noteid]),
      [['shared body', copyId]],
    );
  });

  it('dry-run lists what would go and changes nothing', async () => {
    const f = await fixture('Delete dry');
    const before = storeDigest(t.bridge.services.store);
    const res = await del({ noteIds: [f.D, f.Q] });
    assert.equal(res.status, 422);
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.equal(err.details.wouldDelete, 2);
    assert.deepEqual(err.details.cards, [
      { noteid: f.D, title: 'D', orphanedChildren: 2, descendants: 3, outcome: 'deleted' },
      { noteid: f.Q, title: 'Q', orphanedChildren: 0, descendants: 0, outcome: 'deleted' },
    ]);
    assert.equal(err.details.totalCascadeDeleted, 0);
    assert.deepEqual(err.details.cascadesIntoStudySets, []);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  describe('refusals change nothing', () => {
    let f: Awaited<ReturnType<typeof fixture>>;
    let otherCard: string;
    before(async () => {
      f = await fixture('Delete refusals');
      const other = await t.client.createStudySet('Delete other');
      otherCard = await card(other.topicid, other.rootNoteId!, 'elsewhere');
    });
    const cases: Array<[string, () => Record<string, unknown>, number, string]> = [
      ["the set's root card", () => ({ noteIds: [f.D, f.root] }), 422, 'ROOT_CARD'],
      ['cards of two sets', () => ({ noteIds: [f.D, otherCard] }), 422, 'NOTES_IN_DIFFERENT_SETS'],
      ['an unknown card', () => ({ noteIds: [f.D, '00000000-0000-4000-8000-0000000000AA'] }), 404, 'NOTE_NOT_FOUND'],
      ['51 cards', () => ({ noteIds: Array.from({ length: 51 }, () => f.x) }), 422, 'INVALID_INPUT'],
      ['no cards', () => ({ noteIds: [] }), 422, 'INVALID_INPUT'],
    ];
    for (const [label, body, status, code] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const before = storeDigest(t.bridge.services.store);
        const res = await del({ ...body(), confirm: true });
        assert.equal(res.status, status, res.text());
        assert.equal(res.json<any>().error.code, code);
        assert.equal(storeDigest(t.bridge.services.store), before);
      });
    }
  });
});
