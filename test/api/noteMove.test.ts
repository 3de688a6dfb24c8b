import assert from 'node:assert/strict';
import { BridgeClient } from '../../src/client/bridgeClient';
import { treeViolations } from '../../src/server/domain/cards/treeInvariants';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card as newCard, type TreeNode } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

describe('POST /notes/move', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const card = (topicid: string, parentNoteId: string, title: string) => newCard(t, topicid, { parentNoteId, title });
  const tree = async (topicid: string) =>
    (await t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid } })).nodes;
  const kids = (nodes: readonly TreeNode[], parent: string) =>
    nodes.filter((n) => n.parent === parent).map((n) => n.title);
  const move = (body: Record<string, unknown>, client = t.client) => client.raw('POST', '/notes/move', { body });

  /** root ─ A ─ A1, A2 ; B ─ B1 ; C */
  async function fixture(title = 'Move set') {
    const set = await t.client.createStudySet(title);
    const root = set.rootNoteId!;
    const A = await card(set.topicid, root, 'A');
    const A1 = await card(set.topicid, A, 'A1');
    const A2 = await card(set.topicid, A, 'A2');
    const B = await card(set.topicid, root, 'B');
    const B1 = await card(set.topicid, B, 'B1');
    const C = await card(set.topicid, root, 'C');
    return { topicid: set.topicid, root, A, A1, A2, B, B1, C };
  }

  it('moves cards as the last children of the target, in the order asked; other siblings keep their order', async () => {
    const f = await fixture();
    const res = await move({ noteIds: [f.A2, f.C], targetParentNoteId: f.B, confirm: true });
    assert.equal(res.status, 200);
    const body = res.json<any>();
    assert.equal(body.persisted, true);
    assert.deepEqual(body.moved, [
      { noteid: f.A2, from: f.A, to: f.B },
      { noteid: f.C, from: f.root, to: f.B },
    ]);
    const nodes = await tree(f.topicid);
    assert.deepEqual(kids(nodes, f.B), ['B1', 'A2', 'C']);
    assert.deepEqual(kids(nodes, f.A), ['A1']);
    assert.deepEqual(kids(nodes, f.root), ['A', 'B']);
    assert.equal(nodes.find((n) => n.noteid === f.B)?.childCount, 3);
    assert.deepEqual(treeViolations(nodes, f.root), []);
    const batch = await t.client.call('POST /notes/batch-get', { body: { noteIds: [f.A2, f.C] } });
    assert.deepEqual(
      batch.notes.map((n) => n.parent),
      [f.B, f.B],
    );
  });

  it('the moves form takes a target per card; a branch moves whole; one operation with the actor', async () => {
    const f = await fixture('Moves form');
    const user = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: t.bridge.token });
    const res = await move(
      {
        moves: [
          { noteId: f.A, targetParentNoteId: f.B1 },
          { noteId: f.C, targetParentNoteId: f.A1 },
        ],
        confirm: true,
      },
      user,
    );
    assert.equal(res.status, 200);
    const nodes = await tree(f.topicid);
    const levelOf = (id: string) => nodes.find((n) => n.noteid === id)?.level;
    assert.deepEqual(kids(nodes, f.B1), ['A']);
    assert.deepEqual(kids(nodes, f.A1), ['C']);
    assert.equal(levelOf(f.A2), 4); // root > B > B1 > A > A2
    assert.equal(levelOf(f.C), 5);
    assert.deepEqual(treeViolations(nodes, f.root), []);
    const ops = t.bridge.services.store.all<any>(
      "SELECT kind, actor, note_ids FROM operations WHERE topicid = ? AND kind = 'move'",
      [f.topicid],
    );
    assert.deepEqual(
      ops.map((o) => [o.kind, o.actor, JSON.parse(o.note_ids)]),
      [['move', 'user', [f.A, f.C]]],
    );
  });

  it('a card moved to its own parent stays in place', async () => {
    const f = await fixture('Same parent');
    const res = await move({ noteIds: [f.A1], targetParentNoteId: f.A, confirm: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json<any>().moved, [{ noteid: f.A1, from: f.A, to: f.A }]);
    assert.deepEqual(kids(await tree(f.topicid), f.A), ['A1', 'A2']);
  });

  it('dry-run (no confirm) answers wouldMove and changes nothing', async () => {
    const f = await fixture('Dry move');
    const before = storeDigest(t.bridge.services.store);
    const res = await move({ noteIds: [f.A], targetParentNoteId: f.C });
    assert.equal(res.status, 422);
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.deepEqual(err.details.wouldMove, [{ noteid: f.A, from: f.root, to: f.C }]);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  describe('refusals change nothing', () => {
    let f: Awaited<ReturnType<typeof fixture>>;
    let other: { topicid: string; rootNoteId: string; X: string };
    before(async () => {
      f = await fixture('Refusals');
      const set = await t.client.createStudySet('Other set');
      other = { topicid: set.topicid, rootNoteId: set.rootNoteId!, X: await card(set.topicid, set.rootNoteId!, 'X') };
    });

    const cases: Array<[string, () => Record<string, unknown>, number, string]> = [
      ['under itself', () => ({ noteIds: [f.A], targetParentNoteId: f.A }), 422, 'WOULD_CREATE_CYCLE'],
      ['under its own descendant', () => ({ noteIds: [f.A], targetParentNoteId: f.A2 }), 422, 'WOULD_CREATE_CYCLE'],
      [
        'a cycle made by an earlier move of the batch',
        () => ({
          moves: [
            { noteId: f.A, targetParentNoteId: f.B },
            { noteId: f.B, targetParentNoteId: f.A1 },
          ],
        }),
        422,
        'WOULD_CREATE_CYCLE',
      ],
      ['the root card', () => ({ noteIds: [f.root], targetParentNoteId: f.A }), 422, 'ROOT_CARD'],
      [
        'a target in another set',
        () => ({ noteIds: [f.A], targetParentNoteId: other.X }),
        422,
        'NOTES_IN_DIFFERENT_SETS',
      ],
      [
        'cards of two sets',
        () => ({ noteIds: [f.A, other.X], targetParentNoteId: f.B }),
        422,
        'NOTES_IN_DIFFERENT_SETS',
      ],
      [
        'an unknown card',
        () => ({ noteIds: ['00000000-0000-4000-8000-0000000000AA'], targetParentNoteId: f.B }),
        404,
        'NOTE_NOT_FOUND',
      ],
      [
        'an unknown target',
        () => ({ noteIds: [f.A], targetParentNoteId: '00000000-0000-4000-8000-0000000000AB' }),
        404,
        'NOTE_NOT_FOUND',
      ],
      [
        '51 cards',
        () => ({ noteIds: Array.from({ length: 51 }, () => f.A1), targetParentNoteId: f.B }),
        422,
        'INVALID_INPUT',
      ],
      [
        '51 moves',
        () => ({ moves: Array.from({ length: 51 }, () => ({ noteId: f.A1, targetParentNoteId: f.B })) }),
        422,
        'INVALID_INPUT',
      ],
      [
        'both body forms',
        () => ({ noteIds: [f.A], targetParentNoteId: f.B, moves: [{ noteId: f.C, targetParentNoteId: f.B }] }),
        422,
        'INVALID_INPUT',
      ],
      ['no target', () => ({ noteIds: [f.A] }), 422, 'INVALID_INPUT'],
      ['empty noteIds', () => ({ noteIds: [], targetParentNoteId: f.B }), 422, 'INVALID_INPUT'],
      [
        'a bookmd5 instead of a card id',
        () => ({ noteIds: ['0123456789abcdef0123456789abcdef'], targetParentNoteId: f.B }),
        422,
        'INVALID_INPUT',
      ],
    ];
    for (const [label, body, status, code] of cases) {
      it(`${label} → ${status} ${code}`, async () => {
        const before = storeDigest(t.bridge.services.store);
        const res = await move({ ...body(), confirm: true });
        assert.equal(res.status, status, res.text());
        assert.equal(res.json<any>().error.code, code);
        assert.equal(storeDigest(t.bridge.services.store), before);
      });
    }
  });
});
