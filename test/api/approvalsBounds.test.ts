/**
 * Approvals are bounded: at most 50 calls of one agent token wait for the
 * person (the next answers 429 TOO_MANY_PENDING), a held call carries at most
 * 4 MiB (413 APPROVAL_BODY_TOO_LARGE, before its dry-run is worked out), and
 * held requests are files of their own, not rows the bridge keeps in memory:
 * 400 calls of 900 KB are held by a child bridge whose JS heap is limited to
 * 160 MB, and survive a restart without being read back into memory.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { startBridge, tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { filesMatching, rssOf, sampleRss } from '../helpers/hostileInput';

const MB = 1024 * 1024;
/**
 * The child's JS heap is held to 160 MB: 400 held bodies of 900 KB (360 MB) kept in memory would kill it, whenever
 * its GC runs. RSS once a wave is over is not asserted: it follows the engine's GC timing (Node 20 leaves the last
 * wave's garbage in old space until its next full GC; Node 24's V8 pools freed pages for reuse).
 */
const HEAP_LIMIT = { NODE_OPTIONS: '--max-old-space-size=160' };
const heldFiles = (dataDir: string) => {
  const dir = join(dataDir, 'approvals');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
};

describe('approvals bounded: per agent, in size, and kept on disk (child bridge, RSS from /proc)', function () {
  this.timeout(600_000);
  const dataDir = tempDir('sb-approvals-bounds-');
  let bridge: ChildBridge;
  let owner: BridgeClient;
  let noteid: string;
  let startRss: number;

  const agentNamed = async (name: string) =>
    new BridgeClient({ baseUrl: bridge.baseUrl, token: (await owner.tokens.create(name, 'write')).token });
  const hold = (agent: BridgeClient, pad = '') =>
    agent.raw('POST', '/notes/delete', { body: { noteIds: [noteid], confirm: true, ...(pad ? { pad } : {}) } });
  const pendingOf = async (agent: BridgeClient) =>
    (await agent.request<{ approvals: unknown[] }>('GET', '/approvals')).approvals.length;

  before(async () => {
    bridge = await spawnBridge(['--data', dataDir, '--port', '0', '--approvals', 'destructive'], HEAP_LIMIT);
    owner = new BridgeClient({ baseUrl: bridge.baseUrl, token: readFileSync(join(dataDir, 'token'), 'utf8').trim() });
    const set = await owner.createStudySet('Held deletes');
    noteid = (
      await owner.request<{ noteid: string }>('POST', `/study-sets/${set.topicid}/notes`, {
        body: { title: 'Keep me', confirm: true },
      })
    ).noteid;
    startRss = rssOf(bridge.child.pid!);
  });
  after(async () => {
    bridge?.child.kill('SIGTERM');
    await bridge?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the 51st pending call of one agent answers 429 TOO_MANY_PENDING and stores nothing; another agent still waits; a decision frees a place', async () => {
    const a = await agentNamed('Looping agent');
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await hold(a);
      assert.equal(r.status, 202, r.text());
      ids.push(r.json<{ approvalId: string }>().approvalId);
    }
    const files = heldFiles(dataDir).length;
    const over = await hold(a);
    assert.equal(over.status, 429, over.text());
    const err = over.json<any>().error;
    assert.equal(err.code, 'TOO_MANY_PENDING');
    assert.match(err.message, /50 calls waiting for the person's approval \(at most 50 per agent token\)/);
    assert.match(err.message, /Nothing was stored or changed/);
    assert.equal(err.retryable, true);
    assert.equal(err.details.maxPending, 50);
    assert.ok(err.details.retryAfterSeconds >= 1, JSON.stringify(err.details));
    assert.ok(Number(over.headers.get('retry-after')) >= 1, 'Retry-After says when the oldest expires');
    assert.equal(await pendingOf(a), 50);
    assert.equal(heldFiles(dataDir).length, files, 'the refused call left no file');

    const b = await agentNamed('Other agent');
    assert.equal((await hold(b)).status, 202, "one agent's quota is not another's");

    await owner.approvals.decide(ids[0], 'deny');
    assert.equal((await hold(a)).status, 202, 'a decided call frees its place');
    assert.equal((await hold(a)).status, 429);
  });

  it("a held call's request is a file of its own (not in the store or its journal), removed once decided", async () => {
    const agent = await agentNamed('Padding agent');
    const marker = `held-body-marker-${Date.now()}`;
    const r = await hold(agent, marker.repeat(100));
    assert.equal(r.status, 202, r.text());
    const id = r.json<{ approvalId: string }>().approvalId;
    const file = join(dataDir, 'approvals', `${id}.json`);
    assert.ok(existsSync(file), 'the request is in approvals/<id>.json');
    assert.ok(readFileSync(file, 'utf8').includes(marker));
    const elsewhere = filesMatching(dataDir, /./).filter(
      (p) => !p.startsWith(join(dataDir, 'approvals')) && readFileSync(p).includes(marker),
    );
    assert.deepEqual(elsewhere, [], 'no other file (library.db, its journal) holds the body');
    await owner.approvals.decide(id, 'deny');
    assert.equal(existsSync(file), false, 'a denied call leaves no file');
  });

  it('two waves of 240 calls of 900 KB from 4 agents each: 200 held and 40 refused per wave, RSS peak within +300 MB, all 400 held within a 160 MB JS heap; after a restart they are all pending, the bridge starts small, and one allowed runs', async () => {
    const pad = 'x'.repeat(900 * 1024);
    /** 60 calls from each of 4 new agents at once, with the child's RSS before, at its peak and after. */
    const wave = async (n: number) => {
      const agents = await Promise.all([1, 2, 3, 4].map((i) => agentNamed(`Flooding agent ${n}.${i}`)));
      const before = rssOf(bridge.child.pid!);
      const rss = sampleRss(bridge.child.pid!);
      const statuses = (
        await Promise.all(
          agents.map(async (agent) => {
            const got: number[] = [];
            for (let i = 0; i < 60; i++) got.push((await hold(agent, pad)).status);
            return got;
          }),
        ).catch((e: Error) => {
          throw new Error(`wave ${n}: ${e.message}; the bridge (160 MB heap) said: ${bridge.stderr().slice(-400)}`);
        })
      ).flat();
      const peak = rss.stop();
      assert.equal(statuses.filter((s) => s === 202).length, 200, 'the first 50 of each agent wait');
      assert.equal(statuses.filter((s) => s === 429).length, 40, 'the rest are refused');
      const after = rssOf(bridge.child.pid!);
      console.log(
        `      wave ${n}, 200 held calls of 900 KB: RSS before ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB, after ${(after / MB).toFixed(0)} MB`,
      );
      assert.ok(
        peak < before + 300 * MB,
        `peak ${(peak / MB).toFixed(0)} MB within 300 MB of ${(before / MB).toFixed(0)}`,
      );
    };
    await wave(1);
    await wave(2);
    assert.equal(
      bridge.child.exitCode,
      null,
      `the bridge holding 400 calls of 900 KB within a 160 MB heap: ${bridge.stderr()}`,
    );
    assert.equal(
      (await owner.approvals.pending()).filter((p) => p.agent.name.startsWith('Flooding agent')).length,
      400,
    );

    // Restart on the same data dir: the pending calls are still there, their bodies stay on disk.
    bridge.child.kill('SIGTERM');
    await bridge.exited;
    bridge = await spawnBridge(['--data', dataDir, '--port', '0', '--approvals', 'destructive']);
    owner = new BridgeClient({ baseUrl: bridge.baseUrl, token: readFileSync(join(dataDir, 'token'), 'utf8').trim() });
    const pending = await owner.approvals.pending();
    const restarted = rssOf(bridge.child.pid!);
    console.log(
      `      after restart with ${pending.length} pending: RSS ${(restarted / MB).toFixed(0)} MB (first start ${(startRss / MB).toFixed(0)} MB)`,
    );
    assert.equal(pending.filter((p) => p.agent.name.startsWith('Flooding agent')).length, 400);
    assert.ok(
      restarted < startRss + 100 * MB,
      `restarted at ${(restarted / MB).toFixed(0)} MB, within 100 MB of a fresh start`,
    );
    const one = pending.find((p) => p.agent.name === 'Flooding agent 1.1')!;
    const allowed = await owner.approvals.decide(one.approvalId, 'allow');
    assert.equal(allowed.state, 'allowed');
    assert.equal(allowed.result?.status, 200, JSON.stringify(allowed.result).slice(0, 300));
    assert.equal(existsSync(join(dataDir, 'approvals', `${one.approvalId}.json`)), false);
  });
});

describe('approvals bounded: a held call carries at most 4 MiB', function () {
  this.timeout(120_000);

  it('policy all-writes, a 5 MiB result.md submit from an agent: 413 APPROVAL_BODY_TOO_LARGE, nothing stored, no approval', async () => {
    const dataDir = tempDir('sb-approvals-size-');
    const t = await startBridge({ dataDir, approvals: 'all-writes' });
    try {
      const agent = new BridgeClient({
        baseUrl: t.bridge.baseUrl,
        token: (await t.owner.tokens.create('Big agent', 'write')).token,
      });
      // A route whose body may pass 4 MiB (result.md, 16 MiB; an outline import is held to 2 MiB now).
      const resultMarkdown = `# Big\n${'- a line of the outline\n'.repeat(Math.ceil((5 * MB) / 23))}`;
      const r = await agent.raw('POST', `/bundles/${randomUUID().toUpperCase()}/submit`, { body: { resultMarkdown } });
      assert.equal(r.status, 413, r.text().slice(0, 300));
      const err = r.json<any>().error;
      assert.equal(err.code, 'APPROVAL_BODY_TOO_LARGE');
      assert.match(err.message, /at most 4194304 bytes \(4 MiB\)/);
      assert.equal(err.details.limitBytes, 4 * MB);
      assert.ok(err.details.bytes > 5 * MB);
      assert.deepEqual((await t.owner.call('GET /approvals')).approvals, []);
      assert.deepEqual(heldFiles(dataDir), []);
      // A small call of the same agent still waits for the person.
      const small = await agent.raw('POST', '/library/study-sets/import', {
        body: { format: 'md', title: 'Small', content: '# Small\n- one\n', confirm: true },
      });
      assert.equal(small.status, 202, small.text());
    } finally {
      await t.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
