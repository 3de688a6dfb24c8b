import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { Store } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';

/** Runs the built CLI (npm test builds first; alone, run `npm run build` after changing src/). */
describe('durability: cards created and acknowledged over HTTP survive kill -9', function () {
  this.timeout(120_000);

  it('150 cards (6 writers, each under a card acknowledged before it) are all in the tree after SIGKILL and restart', async () => {
    const dataDir = tempDir('sb-card-crash-');
    const first = await spawnBridge(['--data', dataDir, '--port', '0']);
    const client = new BridgeClient({
      baseUrl: first.baseUrl,
      token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
    });
    const set = await client.createStudySet('Crash set');
    const acked = new Map<string, { parent: string; title: string; text: string }>();
    const parents = [set.rootNoteId!];
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < 150) {
          const i = next++;
          const parent = parents[(i * 7919) % parents.length];
          const card = { parent, title: `card ${i}`, text: `body of card ${i}` };
          const res = await client.call('POST /study-sets/{id}/notes', {
            params: { id: set.topicid },
            body: { parentNoteId: parent, title: card.title, text: card.text, confirm: true },
          });
          assert.equal(res.persisted, true);
          acked.set(res.noteid!, card);
          parents.push(res.noteid!);
        }
      }),
    );
    assert.equal(acked.size, 150);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    assert.ok(existsSync(join(dataDir, 'library.lock')), 'the dead process left its lock');

    const second = await spawnBridge(['--data', dataDir, '--port', '0']);
    const client2 = new BridgeClient({ baseUrl: second.baseUrl, token: client.token });
    const tree = await client2.cards.tree(set.topicid);
    assert.equal(tree.count, 151, 'the root card and every acknowledged card');
    const byId = new Map(tree.nodes.map((n) => [n.noteid, n]));
    for (const [id, card] of acked) {
      const node = byId.get(id);
      assert.ok(node, `acknowledged card ${id} survived`);
      assert.equal(node.parent, card.parent);
      assert.equal(node.title, card.title);
    }
    const ids = [...acked.keys()];
    const read = await client2.cards.batchGet(ids.slice(0, 150));
    assert.deepEqual(read.notFound, []);
    for (const n of read.notes) assert.equal(n.texts[0].text, acked.get(n.noteid)!.text);
    // Still writable after recovery.
    assert.equal((await client2.cards.create(set.topicid, { title: 'after recovery' })).persisted, true);
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0);

    const store = await Store.open(dataDir);
    assert.equal(store.integrityCheck(), 'ok');
    assert.equal(
      store.get<{ c: number }>(`SELECT count(*) c FROM operations WHERE topicid = ? AND kind = 'create'`, [set.topicid])
        ?.c,
      151,
      'one operation per acknowledged create',
    );
    await store.close();
  });
});
