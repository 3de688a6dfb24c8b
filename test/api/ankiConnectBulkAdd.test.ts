import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { MAX_LIST_ITEMS } from '../../src/server/api/ankiconnect/ankiLimits';
import { tempDir } from '../helpers/bridgeFixture';
import { loopProbe, type LoopProbe } from '../helpers/loopProbe';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';

/**
 * AnkiConnect addNotes at its list limit (1,000 notes) through the child
 * bridge, its event loop watched by a preloaded perf_hooks probe: the bridge
 * answers GET /status all along, and other requests see the deck grow while
 * the call runs (the write goes in short transactions, the event loop free
 * between them; one transaction of 1,000 notes held it 2-3 s). A refusal of
 * one note still adds none. The longest loop delay is printed, not asserted.
 */

interface Answer {
  result: any;
  error: string | null;
}

describe('AnkiConnect addNotes of 1,000 notes: the bridge keeps answering while it writes (child bridge)', function () {
  this.timeout(300_000);
  let bridge: ChildBridge;
  let owner: BridgeClient;
  let port: number;
  let key: string;
  let probe: LoopProbe;

  const invoke = async (action: string, params: unknown): Promise<Answer> => {
    const res = await fetch(`http://127.0.0.1:${port}`, {
      method: 'POST',
      body: JSON.stringify({ action, version: 6, key, params }),
    });
    assert.equal(res.status, 200);
    return (await res.json()) as Answer;
  };
  const notes = (deckName: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      deckName,
      modelName: 'Basic',
      fields: { Front: `${deckName} front ${i} ${'word '.repeat(20)}`, Back: `back ${i} ${'more text '.repeat(30)}` },
      tags: ['bulk', `group${i % 10}`],
    }));
  const cardCount = async (title: string) =>
    (await owner.call('GET /decks')).decks.find((d) => d.title === title)?.cardCount ?? 0;

  before(async () => {
    const root = tempDir('sb-anki-bulk-');
    probe = loopProbe(root);
    const dataDir = join(root, 'data');
    bridge = await spawnBridge(['--data', dataDir, '--port', '0', '--ankiconnect-port', '0'], probe.env);
    key = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    owner = new BridgeClient({ baseUrl: bridge.baseUrl, token: key });
    port = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')).ankiConnectPort;
  });
  after(async () => {
    bridge?.child.kill('SIGTERM');
    await bridge?.exited;
  });

  it('GET /status answers throughout, and the deck is seen part-written while the call runs; then all 1,000 are there', async () => {
    assert.equal(MAX_LIST_ITEMS, 1000);
    // The deck exists first, so every count read below is of the same deck.
    assert.equal((await invoke('createDeck', { deck: 'Bulk' })).error, null);
    const t0 = Date.now();
    let done = false;
    const call = invoke('addNotes', { notes: notes('Bulk', 1000) }).finally(() => (done = true));
    const seen = new Set<number>();
    let probes = 0;
    const misses: number[] = [];
    while (!done) {
      probes++;
      const status = await fetch(`${bridge.baseUrl}/status`, { signal: AbortSignal.timeout(5000) }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      );
      if (status !== 200) misses.push(probes);
      if (!done) seen.add(await cardCount('Bulk'));
      await new Promise((r) => setTimeout(r, 20));
    }
    const answer = await call;
    console.log(
      `      addNotes of 1,000: ${Date.now() - t0} ms, ${probes} /status probes, counts seen ${[...seen].sort((a, b) => a - b).join(' ')}, longest loop delay ${probe.delaySince(t0)} ms`,
    );
    assert.equal(answer.error, null);
    assert.equal(answer.result.length, 1000);
    assert.equal(new Set(answer.result).size, 1000);
    assert.deepEqual(misses, [], `GET /status was not answered while addNotes ran (probes ${misses.join(', ')})`);
    assert.ok(
      [...seen].some((c) => c > 0 && c < 1000),
      `a count between 0 and 1,000 was seen while the call ran: ${[...seen].join(', ')}`,
    );
    assert.equal(await cardCount('Bulk'), 1000);
  });

  it('1,000 notes of which the last is refused: the error lists it, and none is added', async () => {
    const batch: unknown[] = notes('Refused', 1000);
    batch[999] = { ...(batch[999] as object), modelName: 'No such model' };
    const answer = await invoke('addNotes', { notes: batch });
    assert.equal(answer.result, null);
    const errors = JSON.parse(answer.error!) as (string | null)[];
    assert.equal(errors.length, 1000);
    assert.ok(errors.slice(0, 999).every((e) => e === null));
    assert.match(errors[999]!, /model was not found: No such model/);
    assert.equal(await cardCount('Refused'), 0);
    assert.ok(!((await invoke('deckNames', {})).result as string[]).includes('Refused'), 'no deck was made');
  });
});
