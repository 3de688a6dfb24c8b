import assert from 'node:assert/strict';
import { treeViolations } from '../../src/server/domain/cards/treeInvariants';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card as newCard, type CardRead, type TreeNode } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

describe('POST /notes/{id}/merge-branch', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const card = (topicid: string, parentNoteId: string, title: string, text?: string) =>
    newCard(t, topicid, { parentNoteId, title, text });
  const tree = async (topicid: string) =>
    (await t.client.call('GET /study-sets/{id}/tree', { params: { id: topicid } })).nodes;
  const kids = (nodes: TreeNode[], parent: string) => nodes.filter((n) => n.parent === parent).map((n) => n.title);
  const batch = async (noteIds: string[]) => t.client.call('POST /notes/batch-get', { body: { noteIds } });
  const merge = (id: string, body: Record<string, unknown>) =>
    t.client.raw('POST', `/notes/${id}/merge-branch`, { body });
  const texts = (n: CardRead) => n.texts.map((x) => [x.index, x.text]);

  /**
   * root ─ K(body "K body", #Keep) ─ C1("c1 body", #math/algebra, comment) ─ G ─ GG
   *                                ├ S (summary card)  ─ S1
   *                                ├ M (sub-map root)  ─ M1
   *                                └ C2 ─ H
   */
  async function fixture(title: string) {
    const set = await t.client.createStudySet(title);
    const root = set.rootNoteId!;
    const K = await card(set.topicid, root, 'K', 'K body');
    const C1 = await card(set.topicid, K, 'C1', 'c1 body');
    const G = await card(set.topicid, C1, 'G');
    const GG = await card(set.topicid, G, 'GG');
    const S = await card(set.topicid, K, 'S');
    const S1 = await card(set.topicid, S, 'S1');
    const M = await card(set.topicid, K, 'M');
    const M1 = await card(set.topicid, M, 'M1');
    const C2 = await card(set.topicid, K, 'C2');
    const H = await card(set.topicid, C2, 'H');
    await t.client.request('POST', `/notes/${C1}/comments`, { body: { text: 'a c1 comment', confirm: true } });
    await t.client.request('POST', '/notes/hashtags', {
      body: { noteIds: [K], operation: 'add', hashtags: ['Keep'], confirm: true },
    });
    await t.client.request('POST', '/notes/hashtags', {
      body: { noteIds: [C1], operation: 'add', hashtags: ['math/algebra', 'keep'], confirm: true },
    });
    await t.client.request('POST', `/notes/${M}/fold-into-sub-map`, { body: { confirm: true } });
    await t.bridge.services.store.write((tx) => tx.run("UPDATE notes SET kind = 'summary' WHERE noteid = ?", [S]));
    return { topicid: set.topicid, root, K, C1, G, GG, S, S1, M, M1, C2, H };
  }

  it('merges the direct children: titles and texts become comments, hashtags join, grandchildren move up in place', async () => {
    const f = await fixture('Merge direct');
    const res = await merge(f.K, { confirm: true });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.equal(body.persisted, true);
    assert.deepEqual(body.merged, [f.C1, f.C2]);
    assert.deepEqual(body.skipped, [
      { noteid: f.S, reason: 'summary_card' },
      { noteid: f.M, reason: 'sub_map_root' },
    ]);
    assert.equal(body.notMergedCount, 7); // G, GG, S, S1, M, M1, H

    const read = await batch([f.K, f.C1, f.C2]);
    assert.deepEqual(read.notFound, [f.C1, f.C2]);
    const [k] = read.notes;
    assert.equal(k.title, 'K');
    assert.deepEqual(texts(k), [
      [0, 'K body'],
      [1, 'C1'],
      [2, 'c1 body'],
      [3, 'a c1 comment'],
      [4, 'C2'],
    ]);
    assert.deepEqual(k.hashtags, ['Keep', 'math/algebra']);
    const nodes = await tree(f.topicid);
    assert.deepEqual(kids(nodes, f.K), ['G', 'S', 'M', 'H']);
    assert.deepEqual(kids(nodes, f.G), ['GG']);
    assert.deepEqual(treeViolations(nodes, f.root), []);
    const ops = t.bridge.services.store.all<any>(
      "SELECT note_ids FROM operations WHERE topicid = ? AND kind = 'merge'",
      [f.topicid],
    );
    assert.deepEqual(
      ops.map((o) => JSON.parse(o.note_ids)),
      [[f.K, f.C1, f.C2]],
    );
  });

  it('recursive merges the whole subtree in reading order, never into summary cards or sub-maps', async () => {
    const f = await fixture('Merge recursive');
    const res = await merge(f.K, { recursive: true, confirm: true });
    assert.equal(res.status, 200, res.text());
    const body = res.json<any>();
    assert.deepEqual(body.merged, [f.C1, f.G, f.GG, f.C2, f.H]);
    assert.equal(body.notMergedCount, 4); // S, S1, M, M1
    const [k] = (await batch([f.K])).notes;
    assert.deepEqual(
      texts(k).map((x) => x[1]),
      ['K body', 'C1', 'c1 body', 'a c1 comment', 'G', 'GG', 'C2', 'H'],
    );
    const nodes = await tree(f.topicid);
    assert.deepEqual(kids(nodes, f.K), ['S', 'M']);
    assert.deepEqual(kids(nodes, f.S), ['S1']);
    assert.deepEqual(kids(nodes, f.M), ['M1']);
    assert.deepEqual(treeViolations(nodes, f.root), []);
  });

  it("a card without a title takes the merged titles joined with '; '", async () => {
    const f = await fixture('Merge untitled');
    await t.client.request('POST', `/notes/${f.K}/title`, { body: { text: '', expectedPrefix: 'K', confirm: true } });
    assert.equal((await batch([f.K])).notes[0].title, '');
    const res = await merge(f.K, { confirm: true });
    assert.equal(res.status, 200, res.text());
    const [k] = (await batch([f.K])).notes;
    assert.equal(k.title, 'C1; C2');
    assert.deepEqual(
      texts(k).map((x) => x[1]),
      ['K body', 'c1 body', 'a c1 comment'],
    );
  });

  it('a leaf card: willMerge [] in the dry-run, merged [] when confirmed, nothing written', async () => {
    const f = await fixture('Merge leaf');
    const before = storeDigest(t.bridge.services.store);
    const dry = await merge(f.H, {});
    assert.equal(dry.status, 422);
    assert.deepEqual(dry.json<any>().error.details.willMerge, []);
    const res = await merge(f.H, { confirm: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json<any>().merged, []);
    assert.equal(res.json<any>().notMergedCount, 0);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('dry-run lists willMerge, notMergedCount and skipped, and changes nothing', async () => {
    const f = await fixture('Merge dry');
    const before = storeDigest(t.bridge.services.store);
    const res = await merge(f.K, { recursive: true });
    assert.equal(res.status, 422);
    const err = res.json<any>().error;
    assert.equal(err.code, 'CONFIRM_REQUIRED');
    assert.deepEqual(err.details.willMerge, [
      { noteid: f.C1, title: 'C1' },
      { noteid: f.G, title: 'G' },
      { noteid: f.GG, title: 'GG' },
      { noteid: f.C2, title: 'C2' },
      { noteid: f.H, title: 'H' },
    ]);
    assert.equal(err.details.notMergedCount, 4);
    assert.equal(err.details.skipped.length, 2);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('refusals: unknown card → 404, bad recursive → 422, nothing written', async () => {
    const f = await fixture('Merge refusals');
    const before = storeDigest(t.bridge.services.store);
    const unknown = await merge('00000000-0000-4000-8000-0000000000AA', { confirm: true });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json<any>().error.code, 'NOTE_NOT_FOUND');
    const bad = await merge(f.K, { recursive: 'yes', confirm: true });
    assert.equal(bad.status, 422);
    assert.equal(bad.json<any>().error.code, 'INVALID_INPUT');
    const badId = await merge('not-a-card', { confirm: true });
    assert.equal(badId.status, 422);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });
});
