import assert from 'node:assert/strict';
import { BridgeClient } from '../../src/client/bridgeClient';
import { subMapCounts, treeViolations } from '../../src/server/domain/cards/treeInvariants';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card as newCard } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

describe('POST /notes/{id}/fold-into-sub-map', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const card = (topicid: string, parentNoteId: string, title: string) => newCard(t, topicid, { parentNoteId, title });
  const tree = async (topicid: string, root?: string) =>
    (await t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid }, query: { root } })).nodes;
  const subMaps = async (topicid: string) =>
    (await t.client.call('GET /study-sets/{id}/sub-maps', { params: { id: topicid } })).subMaps;
  const fold = (id: string, body: Record<string, unknown>, client = t.client) =>
    client.raw('POST', `/notes/${id}/fold-into-sub-map`, { body });

  /** root ─ A ─ A1 ─ A11 ; A2 ; L (leaf) */
  async function fixture(title: string) {
    const set = await t.client.createStudySet(title);
    const root = set.rootNoteId!;
    const A = await card(set.topicid, root, 'A');
    const A1 = await card(set.topicid, A, 'A1');
    const A11 = await card(set.topicid, A1, 'A11');
    const A2 = await card(set.topicid, A, 'A2');
    const L = await card(set.topicid, root, 'L');
    return { topicid: set.topicid, root, A, A1, A11, A2, L };
  }

  it('makes the card a sub-map root: its descendants live in it (subMapId, depth), listed by /sub-maps; undo expands it', async () => {
    const f = await fixture('Fold');
    const user = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: t.bridge.token });
    const res = await fold(f.A, { confirm: true }, user);
    assert.equal(res.status, 200, res.text());
    assert.deepEqual(
      (({ persisted, noteid, isSubMapRoot }) => ({ persisted, noteid, isSubMapRoot }))(res.json<any>()),
      { persisted: true, noteid: f.A, isSubMapRoot: true },
    );
    const nodes = await tree(f.topicid);
    assert.deepEqual(treeViolations(nodes, f.root), []);
    const at = (id: string) => {
      const node = nodes.find((n) => n.noteid === id);
      assert.ok(node, id);
      return node;
    };
    assert.deepEqual([at(f.A).isSubMapRoot, at(f.A).subMapId, at(f.A).depth], [true, null, 0]);
    assert.deepEqual([at(f.A1).subMapId, at(f.A1).depth], [f.A, 1]);
    assert.deepEqual([at(f.A11).subMapId, at(f.A11).depth], [f.A, 1]);
    assert.deepEqual([at(f.L).subMapId, at(f.L).depth], [null, 0]);
    const listed = await subMaps(f.topicid);
    assert.deepEqual(
      listed.map((s) => [s.noteid, s.cardCount]),
      [[f.A, 3]],
    );
    assert.equal(subMapCounts(nodes).get(f.A)!.descendants, 3);
    assert.deepEqual(
      (await tree(f.topicid, f.A)).map((n) => n.title),
      ['A', 'A1', 'A11', 'A2'],
    );
    const [b] = (await t.client.call('POST /notes/batch-get', { body: { noteIds: [f.A] } })).notes;
    assert.equal(b.isSubMapRoot, true);

    // A nested sub-map.
    assert.equal((await fold(f.A1, { confirm: true })).status, 200);
    const nested = await tree(f.topicid);
    assert.deepEqual(treeViolations(nested, f.root), []);
    assert.deepEqual(
      [nested.find((n) => n.noteid === f.A11)?.subMapId, nested.find((n) => n.noteid === f.A11)?.depth],
      [f.A1, 2],
    );
    assert.deepEqual(
      (await subMaps(f.topicid)).map((s) => [s.noteid, s.cardCount, s.depth]),
      [
        [f.A, 3, 0],
        [f.A1, 1, 1],
      ],
    );

    const undo = await fold(f.A, { undo: true, confirm: true });
    assert.equal(undo.status, 200);
    assert.equal(undo.json<any>().isSubMapRoot, false);
    const after = await tree(f.topicid);
    assert.deepEqual(
      [after.find((n) => n.noteid === f.A1)?.subMapId, after.find((n) => n.noteid === f.A11)?.depth],
      [null, 1],
    );
    assert.deepEqual(
      (await subMaps(f.topicid)).map((s) => s.noteid),
      [f.A1],
    );

    const ops = t.bridge.services.store.all<any>(
      "SELECT actor, note_ids FROM operations WHERE topicid = ? AND kind = 'sub-map' ORDER BY op_seq",
      [f.topicid],
    );
    assert.deepEqual(
      ops.map((o) => [o.actor, JSON.parse(o.note_ids)]),
      [
        ['user', [f.A]],
        ['agent', [f.A1]],
        ['agent', [f.A]],
      ],
    );
  });

  it('folding a card that already is a sub-map root changes nothing (changed:false)', async () => {
    const f = await fixture('Fold twice');
    assert.equal((await fold(f.A, { confirm: true })).status, 200);
    const before = storeDigest(t.bridge.services.store);
    const again = await fold(f.A, { confirm: true });
    assert.equal(again.status, 200);
    assert.deepEqual([again.json<any>().isSubMapRoot, again.json<any>().changed], [true, false]);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  describe('refusals change nothing', () => {
    let f: Awaited<ReturnType<typeof fixture>>;
    before(async () => (f = await fixture('Fold refusals')));
    const cases: Array<[string, () => [string, Record<string, unknown>], number, string]> = [
      ['a leaf card', () => [f.L, { confirm: true }], 422, 'NO_CHILDREN'],
      ['undo on a card that is no sub-map', () => [f.A, { undo: true, confirm: true }], 422, 'NOT_A_SUB_MAP'],
      ["the set's root card", () => [f.root, { confirm: true }], 422, 'ROOT_CARD'],
      ['an unknown card', () => ['00000000-0000-4000-8000-0000000000AA', { confirm: true }], 404, 'NOTE_NOT_FOUND'],
      ['undo not a boolean', () => [f.A, { undo: 'yes', confirm: true }], 422, 'INVALID_INPUT'],
      ['no confirm', () => [f.A, {}], 422, 'CONFIRM_REQUIRED'],
    ];
    for (const [label, req, status, code] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const before = storeDigest(t.bridge.services.store);
        const [id, body] = req();
        const res = await fold(id, body);
        assert.equal(res.status, status, res.text());
        assert.equal(res.json<any>().error.code, code);
        assert.equal(storeDigest(t.bridge.services.store), before);
      });
    }
  });
});
