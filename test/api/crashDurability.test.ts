import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { Store } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';

describe('durability: acknowledged writes survive kill -9', function () {
  this.timeout(120_000);

  it('N = 240 acknowledged writes (8 at a time) are all there after SIGKILL and restart; a torn tail is discarded', async () => {
    const dataDir = tempDir('sb-crash-');
    const first = await spawnBridge(['--data', dataDir, '--port', '0']);
    const client = new BridgeClient({
      baseUrl: first.baseUrl,
      token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
    });
    const acked: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 240) {
          const i = next++;
          const set = await client.createStudySet(`crash set ${i}`);
          assert.equal(set.isStudySet, true);
          acked.push(set.topicid);
        }
      }),
    );
    assert.equal(acked.length, 240);
    first.child.kill('SIGKILL');
    const { signal } = await first.exited;
    assert.equal(signal, 'SIGKILL');
    assert.ok(existsSync(join(dataDir, 'library.lock')), 'the dead process left its lock');

    // A write cut in half by the crash: a record header promising more bytes than follow.
    appendFileSync(join(dataDir, 'library.journal'), Buffer.from([0xff, 0x01, 0, 0, 0xde, 0xad, 0xbe, 0xef, 0x7b]));

    const second = await spawnBridge(['--data', dataDir, '--port', '0']);
    const client2 = new BridgeClient({ baseUrl: second.baseUrl, token: client.token });
    const sets = await client2.listStudySets();
    const ids = new Set(sets.map((s) => s.topicid));
    for (const id of acked) assert.ok(ids.has(id), `acknowledged set ${id} survived`);
    assert.equal(sets.length, 240);
    // Still writable after recovery.
    await client2.createStudySet('after recovery');
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0);

    const store = await Store.open(dataDir);
    assert.equal(store.integrityCheck(), 'ok');
    assert.equal(store.get<{ c: number }>(`SELECT count(*) c FROM topics WHERE kind = 'studyset'`)?.c, 241);
    assert.equal(store.get<{ c: number }>('SELECT count(*) c FROM notes')?.c, 241, 'one root card per set');
    await store.close();
  });
});
