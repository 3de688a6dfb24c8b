import assert from 'node:assert/strict';
import type { BridgeClient } from '../../src/client/bridgeClient';
import type { FaultCall, FaultKind, FaultOp } from '../helpers/faultShim';
import { createCard, FaultyBridge, titles } from './faultsFixture';

const KIND: Record<FaultOp, FaultKind> = { write: 'ENOSPC', fsync: 'EIO', ftruncate: 'EIO', rename: 'EIO' };

/** How many calls of each op a step made in the data dir, as the shim logged them. */
function census(calls: FaultCall[]): Map<FaultOp, number> {
  const n = new Map<FaultOp, number>();
  for (const c of calls) n.set(c.op, (n.get(c.op) ?? 0) + 1);
  return n;
}

/** A call's path as a kind: the data dir left out, and the pid and counter of a temp file's name. */
const pathKind = (path: string, dataDir: string) => path.slice(dataDir.length).replace(/\.\d+\.\d+\.tmp/g, '.tmp');

/**
 * The Nth calls of `op` to fail in the checkpoint sweep, from a logged clean checkpoint: the first and last of each
 * run of calls to the same file (and the middle of a long run). A checkpoint writes some twenty pages of library.db
 * in a row, each failing the same way; trying every one of them took two minutes a Node.
 */
function sampledCalls(census: FaultCall[], op: FaultOp, dataDir: string): number[] {
  const kinds = census.filter((c) => c.op === op).map((c) => pathKind(c.path, dataDir));
  const points = new Set<number>();
  for (let i = 0; i < kinds.length;) {
    let end = i;
    while (end + 1 < kinds.length && kinds[end + 1] === kinds[i]) end++;
    for (const k of [i, Math.floor((i + end) / 2), end]) points.add(k + 1);
    i = end + 1;
  }
  return [...points].sort((a, b) => a - b);
}

/**
 * SQLite's own tests fail every I/O call of a path in turn; so does this, with
 * the LD_PRELOAD shim on a child bridge. For each call site (op × Nth call) of
 * a card write and of a checkpoint: an answer of 200 means the card is there
 * after kill -9 and restart, a failure means it is not (now or after restart),
 * and a client retry of a failed write makes exactly one card. The checkpoint's
 * run of page writes to library.db is sampled (sampledCalls); every other call is tried.
 */
describe('fault sweep: every call site of the write and checkpoint paths', function () {
  this.timeout(600_000);
  let f: FaultyBridge;
  let client: BridgeClient;
  let setId: string;
  /** Titles the bridge answered 200 for: each must exist exactly once. */
  const acked: string[] = [];

  before(async function () {
    const made = FaultyBridge.create();
    if (!made) return this.skip();
    f = made;
    client = await f.start();
    setId = (await client.createStudySet('Sweep')).topicid;
  });
  after(() => f?.dispose());

  async function expectExactlyAcked(when: string): Promise<void> {
    const now = await titles(client, setId);
    for (const t of acked)
      assert.equal(now.filter((x) => x === t).length, 1, `${when}: acknowledged "${t}" is there once`);
    assert.equal(now.length, acked.length + 1, `${when}: nothing else is there (${now.join(', ')})`);
  }

  it('card write: each write/fsync of the journal failing in turn', async () => {
    f.shim.resetLog();
    const probe = await createCard(client, setId, 'probe write');
    assert.equal(probe.status, 200);
    acked.push('probe write');
    const sites = census(f.shim.calls());
    assert.ok((sites.get('write') ?? 0) >= 1 && (sites.get('fsync') ?? 0) >= 1, JSON.stringify([...sites]));
    for (const [op, count] of sites) {
      for (let nth = 1; nth <= count; nth++) {
        const title = `w ${op} ${nth}`;
        f.shim.arm(op, nth, KIND[op], f.dataDir);
        const res = await createCard(client, setId, title);
        f.shim.clear();
        const site = `${op} #${nth} → ${res.status}`;
        if (res.status === 200) acked.push(title);
        else {
          assert.ok([503, 507].includes(res.status), `${site}: ${res.text()}`);
          assert.equal(res.json<any>().error.retryable, true, site);
        }
        await expectExactlyAcked(`${site}, before the crash`);
        await f.kill9();
        client = await f.start();
        await expectExactlyAcked(`${site}, after kill -9`);
        if (res.status !== 200) {
          const retry = await createCard(client, setId, title);
          assert.equal(retry.status, 200, `${site}: the client's retry`);
          acked.push(title);
          await expectExactlyAcked(`${site}, after the retry`);
        }
      }
    }
  });

  it('snapshot (a content file written in the transaction, then the journal): each call failing in turn', async () => {
    const snapshots = async () =>
      (
        await client.request<{ snapshots: Array<{ description: string }> }>('GET', `/study-sets/${setId}/snapshots`)
      ).snapshots.map((x) => x.description);
    const snap = (description: string) =>
      client.raw('POST', `/study-sets/${setId}/snapshots`, { body: { description, confirm: true } });
    const kept: string[] = [];
    const expectSnapshots = async (when: string) => {
      const now = await snapshots();
      for (const d of kept)
        assert.equal(now.filter((x) => x === d).length, 1, `${when}: acknowledged snapshot "${d}" is there once`);
      assert.ok(
        now.every((d) => kept.includes(d) || !d.startsWith('s ')),
        `${when}: no failed snapshot is there (${now.join(', ')})`,
      );
    };
    // New content each time, so the content file is really written (it is content-addressed).
    const change = async (title: string) => {
      assert.equal((await createCard(client, setId, title)).status, 200);
      acked.push(title);
    };
    await change('snapshot probe card');
    f.shim.resetLog();
    assert.equal((await snap('s probe')).status, 200);
    kept.push('s probe');
    const sites = census(f.shim.calls());
    assert.ok((sites.get('rename') ?? 0) >= 1, `the content file is renamed into place: ${JSON.stringify([...sites])}`);
    const failures: string[] = [];
    for (const [op, count] of sites) {
      for (let nth = 1; nth <= count; nth++) {
        const description = `s ${op} ${nth}`;
        await change(`before ${description}`);
        f.shim.arm(op, nth, KIND[op], f.dataDir);
        const res = await snap(description);
        f.shim.clear();
        if (res.status === 200) kept.push(description);
        else {
          assert.ok(res.status >= 500, `${op} #${nth}: ${res.text()}`);
          assert.notEqual(
            res.json<any>().error.code,
            'INTERNAL',
            `${op} #${nth}: a disk fault has its own code, not an anonymous 500: ${res.text()}`,
          );
          failures.push(`${op}#${nth} → ${res.status} ${res.json<any>().error.code}`);
        }
        await expectSnapshots(`snapshot ${op} #${nth} → ${res.status}`);
        await f.kill9();
        client = await f.start();
        await expectSnapshots(`snapshot ${op} #${nth} → ${res.status}, after kill -9`);
        await expectExactlyAcked(`snapshot ${op} #${nth}, after kill -9`);
      }
    }
    assert.ok(failures.length >= 3, `faults were answered as failures: ${failures.join('; ')}`);
    console.log(`      snapshot call sites answered as failures: ${failures.join('; ')}`);
  });

  it('checkpoint (at a clean stop): each kind of write/fsync/ftruncate/rename call failing in turn loses no acknowledged card', async () => {
    // Enough cards that a checkpoint after one more writes changed pages through the redo file (the longer path).
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        createCard(client, setId, `filler ${i}`).then((r) => (assert.equal(r.status, 200), acked.push(`filler ${i}`))),
      ),
    );
    // A clean stop folds them into library.db, so each cycle below changes only a few pages.
    assert.equal(await f.stop(), 0);
    client = await f.start();
    // One clean checkpoint, logged: the calls a cycle below makes, in order.
    assert.equal((await createCard(client, setId, 'c census')).status, 200);
    acked.push('c census');
    f.shim.resetLog();
    assert.equal(await f.stop(), 0);
    const census = f.shim.calls();
    client = await f.start();
    const viaRedo = (calls: FaultCall[]) => calls.some((c) => c.path.includes('library.db.redo'));
    let pagesMode = viaRedo(census) ? 1 : 0;
    const injected: string[] = [];
    for (const op of ['write', 'fsync', 'ftruncate', 'rename'] as const) {
      const points = sampledCalls(census, op, f.dataDir);
      assert.ok(points.length, `a checkpoint makes at least one ${op} call`);
      for (const nth of points) {
        const title = `c ${op} ${nth}`;
        assert.equal((await createCard(client, setId, title)).status, 200);
        acked.push(title);
        f.shim.resetLog();
        f.shim.arm(op, nth, KIND[op], f.dataDir);
        await f.stop().catch(() => undefined); // the checkpoint at close may fail: the journal still holds everything
        const calls = f.shim.calls();
        if (viaRedo(calls)) pagesMode++;
        const hit = calls.find((c) => c.injected !== '-');
        client = await f.start();
        // A checkpoint may write a page fewer than the census's: then its last call was the one before.
        if (!hit && nth > 1 && nth === points[points.length - 1]) continue;
        assert.ok(hit, `the checkpoint reached ${op} #${nth} of the census's ${points.join(', ')}`);
        injected.push(`${op}#${nth} ${hit.path.slice(f.dataDir.length + 1) || '(folder)'}`);
        await expectExactlyAcked(`checkpoint ${op} #${nth} (${hit.path}), after restart`);
      }
    }
    assert.ok(pagesMode > 0, 'some checkpoints went through the redo file');
    // Writable after all that, and a crash right after keeps everything.
    assert.equal((await createCard(client, setId, 'last')).status, 200);
    acked.push('last');
    await f.kill9();
    client = await f.start();
    await expectExactlyAcked('after the sweep, one more write and kill -9');
    console.log(`      checkpoint call sites failed in turn: ${injected.join('; ')}`);
  });
});
