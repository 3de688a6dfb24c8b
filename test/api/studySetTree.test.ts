import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card as newCard, type CardBody } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

const NOBODY = '00000000-0000-4000-8000-00000000ABCD';

describe('GET /study-sets/{id}/tree', function () {
  this.timeout(60_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  const create = (setId: string, body: CardBody) => newCard(t, setId, body);
  const tree = (setId: string, root?: string) =>
    t.client.call('GET /study-sets/{id}/tree', { params: { id: setId }, query: { root } });
  const pick = (nodes: any[], ...keys: string[]) => nodes.map((n) => keys.map((k) => n[k]));

  it('a new set is its root card alone', async () => {
    const set = await t.client.createStudySet('Empty');
    const res = await tree(set.topicid);
    assert.equal(res.topicid, set.topicid);
    assert.equal(res.rootNoteId, set.rootNoteId);
    assert.equal(res.count, 1);
    assert.deepEqual(res.nodes, [
      {
        noteid: set.rootNoteId,
        parent: null,
        depth: 0,
        level: 0,
        childCount: 0,
        subMapId: null,
        isSubMapRoot: false,
        title: 'Empty',
        displayTitle: 'Empty',
        folded: false,
        colorIndex: null,
        fillIndex: null,
        hasExcerpt: false,
        page: null,
      },
    ]);
  });

  describe('a set with nested sub-maps', () => {
    let setId: string;
    let root: string;
    const ids: Record<string, string> = {};
    before(async () => {
      const set = await t.client.createStudySet('Linear algebra');
      setId = set.topicid;
      root = set.rootNoteId!;
      ids.B = await create(setId, { title: 'B' });
      ids.A = await create(setId, { title: 'A', colorIndex: 5, fillIndex: -1 });
      ids.A1 = await create(setId, { parentNoteId: ids.A, title: 'A1' });
      ids.A1a = await create(setId, { parentNoteId: ids.A1, title: 'x'.repeat(50) + ' and a tail past sixty-four' });
      ids.A2 = await create(setId, { parentNoteId: ids.A, title: 'A2' });
      ids.gone = await create(setId, { parentNoteId: ids.A, title: 'hidden one' });
      ids.orphan = await create(setId, { parentNoteId: ids.gone, title: 'under a hidden card' });
      // Sub-maps, folding, sibling order and hiding are written directly here: their own routes belong to other modules.
      await t.bridge.services.store.write((tx) => {
        tx.run('UPDATE notes SET sub_map = 1 WHERE noteid IN (?, ?)', [ids.A, ids.A1]);
        tx.run('UPDATE notes SET folded = 1 WHERE noteid = ?', [ids.A1]);
        tx.run('UPDATE notes SET position = -1 WHERE noteid = ?', [ids.A]); // A before B although created after
        tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [ids.gone]);
      });
    });

    it('nodes come in pre-order with parent, depth (sub-map nesting), level, subMapId, visible childCount', async () => {
      const res = await tree(setId);
      const name = (id: string | null) =>
        id === null ? null : id === root ? 'root' : Object.keys(ids).find((k) => ids[k] === id);
      assert.deepEqual(
        res.nodes.map((n) => [
          name(n.noteid),
          name(n.parent),
          n.depth,
          n.level,
          n.childCount,
          name(n.subMapId),
          n.isSubMapRoot,
          n.folded,
        ]),
        [
          ['root', null, 0, 0, 2, null, false, false],
          ['A', 'root', 0, 1, 2, null, true, false],
          ['A1', 'A', 1, 2, 1, 'A', true, true],
          ['A1a', 'A1', 2, 3, 0, 'A1', false, false],
          ['A2', 'A', 1, 2, 0, 'A', false, false],
          ['B', 'root', 0, 1, 0, null, false, false],
        ],
      );
      assert.equal(res.count, 6, 'the hidden card and the card under it are not in the tree');
      const a = res.nodes[1];
      assert.deepEqual([a.title, a.colorIndex, a.fillIndex], ['A', 5, -1]);
      const long = res.nodes[3].title;
      assert.equal(long.length, 64);
      assert.equal(long, ('x'.repeat(50) + ' and a tail past sixty-four').slice(0, 64));
    });

    it('?root= reads one sub-tree, its root first with its real parent; depth and level stay those of the whole set', async () => {
      const res = await tree(setId, ids.A.toLowerCase());
      assert.equal(res.rootNoteId, ids.A);
      assert.deepEqual(
        pick(res.nodes, 'title', 'parent', 'depth', 'level').map((r: any[]) => [r[0].slice(0, 3), r[1], r[2], r[3]]),
        [
          ['A', root, 0, 1],
          ['A1', ids.A, 1, 2],
          ['xxx', ids.A1, 2, 3],
          ['A2', ids.A, 1, 2],
        ],
      );
      assert.equal(res.count, 4);
      const leaf = await tree(setId, ids.B);
      assert.deepEqual(pick(leaf.nodes, 'noteid'), [[ids.B]]);
    });

    it('a reference copy shows its original’s title', async () => {
      const copy = await create(setId, { title: 'stale copy title' });
      await t.bridge.services.store.write((tx) =>
        tx.run('UPDATE notes SET reference_of = ? WHERE noteid = ?', [ids.A2, copy]),
      );
      const node = (await tree(setId)).nodes.find((n) => n.noteid === copy);
      assert.ok(node);
      assert.equal(node.title, 'A2');
    });

    it('refusals: unknown set 404, deck 422 IS_A_DECK, unknown or hidden root 404, another set’s card 422, a bad id 422; nothing changes', async () => {
      const deck = await t.client.createDeck('Deck');
      const other = await t.client.createStudySet('Other');
      const before = storeDigest(t.bridge.services.store);
      for (const [path, query, status, code] of [
        [`/study-sets/${NOBODY}/tree`, {}, 404, 'TOPIC_NOT_FOUND'],
        [`/study-sets/${deck.deckId}/tree`, {}, 422, 'IS_A_DECK'],
        [`/study-sets/${setId}/tree`, { root: NOBODY }, 404, 'NOTE_NOT_FOUND'],
        [`/study-sets/${setId}/tree`, { root: ids.gone }, 404, 'NOTE_NOT_FOUND'],
        [`/study-sets/${setId}/tree`, { root: other.rootNoteId! }, 422, 'NOTES_IN_DIFFERENT_SETS'],
        [`/study-sets/${setId}/tree`, { root: 'not-a-uuid' }, 422, 'INVALID_INPUT'],
        ['/study-sets/0123456789abcdef0123456789abcdef/tree', {}, 422, 'INVALID_INPUT'],
      ] as const) {
        const res = await t.client.raw('GET', path, { query });
        assert.equal(res.status, status, `${path} ${JSON.stringify(query)}: ${res.text()}`);
        assert.equal(res.json<any>().error.code, code);
      }
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  });

  it('a generated 2,000-card set: every visible card reachable once, parents before children, siblings by position, childCount and subMapId consistent', async () => {
    const set = await t.client.createStudySet('Generated');
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const cards: Array<{ id: string; parent: string; position: number; subMap: number; hidden: number }> = [];
    const all = [set.rootNoteId!];
    for (let i = 0; i < 2000; i++) {
      const id = `GEN-${String(i).padStart(5, '0')}`;
      cards.push({
        id,
        parent: all[Math.floor(rand() * all.length)],
        position: Math.floor(rand() * 50),
        subMap: rand() < 0.05 ? 1 : 0,
        hidden: rand() < 0.02 ? 1 : 0,
      });
      all.push(id);
    }
    await t.bridge.services.store.write((tx) => {
      for (const c of cards) {
        tx.run(
          `INSERT INTO notes(noteid, topicid, parent_id, position, title, sub_map, hidden, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'a', 'a')`,
          [c.id, set.topicid, c.parent, c.position, c.id, c.subMap, c.hidden],
        );
      }
    });
    // Expected independently: walk from the root through visible cards.
    const byParent = new Map<string, typeof cards>();
    for (const c of cards) if (!c.hidden) byParent.set(c.parent, [...(byParent.get(c.parent) ?? []), c]);
    const expected: string[] = [];
    const walk = (id: string) => {
      expected.push(id);
      for (const c of (byParent.get(id) ?? []).sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1)))
        walk(c.id);
    };
    walk(set.rootNoteId!);

    // A long answer is sent in pieces (http/jsonBody.ts): the same bytes as one JSON.stringify, with its Content-Length.
    const raw = await t.client.raw('GET', `/study-sets/${set.topicid}/tree`);
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('content-length'), String(raw.bytes.length));
    assert.match(raw.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
    const res = raw.json<any>();
    assert.equal(raw.text(), JSON.stringify(res));
    assert.equal(res.count, expected.length);
    assert.deepEqual(
      res.nodes.map((n: any) => n.noteid),
      expected,
    );
    const byId = new Map(res.nodes.map((n: any) => [n.noteid, n]));
    const gen = new Map(cards.map((c) => [c.id, c]));
    for (const n of res.nodes as any[]) {
      assert.equal(n.childCount, (byParent.get(n.noteid) ?? []).length);
      if (n.parent === null) continue;
      const p: any = byId.get(n.parent);
      assert.ok(p, 'parent present');
      assert.equal(n.level, p.level + 1);
      assert.equal(n.subMapId, p.isSubMapRoot ? p.noteid : p.subMapId);
      assert.equal(n.depth, p.depth + (p.isSubMapRoot ? 1 : 0));
      assert.equal(n.isSubMapRoot, gen.get(n.noteid)!.subMap === 1);
    }
  });

  // The tree is kept serialised until the next write (http/answerCache.ts): asked again unchanged it is the same
  // bytes, and whatever a write changes, in this set or through another one, shows in the very next answer.
  it('asked again unchanged it is the same bytes; a rename, a card elsewhere and an original renamed in another set show at once', async () => {
    const other = await t.client.createStudySet('Originals');
    const original = await create(other.topicid, { title: 'Original title' });
    const set = await t.client.createStudySet('Kept');
    const card = await create(set.topicid, { title: 'first title' });
    const copy = await create(set.topicid, { title: 'copy' });
    await t.bridge.services.store.write((tx) =>
      tx.run('UPDATE notes SET reference_of = ? WHERE noteid = ?', [original, copy]),
    );
    const raw = () => t.client.raw('GET', `/study-sets/${set.topicid}/tree`);
    const first = await raw();
    const again = await raw();
    assert.equal(first.status, 200);
    assert.ok(first.bytes.equals(again.bytes), 'the same answer');
    assert.equal(Number(again.headers.get('content-length')), again.bytes.length);
    // The kept answer sits behind the gates: no token, a bad token or an Origin is still refused.
    assert.equal((await t.client.raw('GET', `/study-sets/${set.topicid}/tree`, { anonymous: true })).status, 401);
    assert.equal(
      (
        await t.client.raw('GET', `/study-sets/${set.topicid}/tree`, {
          anonymous: true,
          headers: { Authorization: 'Bearer wrong' },
        })
      ).status,
      401,
    );
    assert.equal(
      (await t.client.raw('GET', `/study-sets/${set.topicid}/tree`, { headers: { Origin: 'https://example.com' } }))
        .status,
      403,
    );
    const titleOf = async (id: string) => (await tree(set.topicid)).nodes.find((n) => n.noteid === id)?.title;

    await t.client.request('POST', `/notes/${card}/title`, {
      body: { text: 'second title', expectedPrefix: 'first title', confirm: true },
    });
    assert.equal(await titleOf(card), 'second title');
    await create(other.topicid, { title: 'a card in the other set' }); // changes nothing here: the answer is the same
    assert.deepEqual((await tree(set.topicid)).nodes, (await raw()).json<any>().nodes);
    await t.bridge.services.store.write((tx) =>
      tx.run('UPDATE notes SET title = ? WHERE noteid = ?', ['Renamed original', original]),
    );
    assert.equal(await titleOf(copy), 'Renamed original');
    const sub = await t.client.call('GET /study-sets/{id}/sub-maps', { params: { id: set.topicid } });
    assert.equal(sub.count, 0);
  });
});
