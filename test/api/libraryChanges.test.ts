import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

interface Changes {
  revision: number;
  changed: boolean;
}

describe('GET /library/changes (long poll)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  /** Commit listeners the store holds: proves a poll is parked (or was released). */
  const listeners = () =>
    (t.bridge.services.store as unknown as { commitListeners: Set<unknown> }).commitListeners.size;
  const untilListeners = async (n: number) => {
    for (let i = 0; i < 500 && listeners() !== n; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(listeners(), n);
  };
  const changes = (since: number, waitMs: number, signal?: AbortSignal) =>
    t.client.request<Changes>('GET', '/library/changes', { query: { since, waitMs }, signal });

  it('answers at once with the current revision; a revision other than since is a change', async () => {
    const now = await changes(0, 0);
    assert.equal(now.revision, t.bridge.services.store.revision);
    await t.client.createStudySet('Feed one');
    const after = await changes(now.revision, 25_000);
    assert.equal(after.changed, true);
    assert.ok(after.revision > now.revision, `${after.revision} > ${now.revision}`);
    assert.equal(after.revision, t.bridge.services.store.revision);
  });

  it('a write during the wait wakes the poll with the new revision', async () => {
    const since = (await changes(0, 0)).revision;
    const base = listeners();
    const pending = changes(since, 20_000);
    await untilListeners(base + 1); // parked on the store
    const set = await t.client.createStudySet('Written while an agent waits');
    const woke = await pending;
    assert.equal(woke.changed, true);
    assert.equal(woke.revision, t.bridge.services.store.revision);
    assert.ok(woke.revision > since);
    assert.ok(
      (await t.client.listStudySets()).some((s) => s.topicid === set.topicid),
      'the write the poll announced is readable',
    );
    assert.equal(listeners(), base, 'the poll let go of the store');
  });

  it('waitMs passing without a write answers changed:false at the same revision', async () => {
    const since = (await changes(0, 0)).revision;
    const res = await changes(since, 300);
    assert.equal(res.changed, false);
    assert.equal(res.revision, since);
  });

  it('a caller that goes away releases its wait', async () => {
    const since = (await changes(0, 0)).revision;
    const base = listeners();
    const abort = new AbortController();
    const pending = changes(since, 25_000, abort.signal).catch((e: unknown) => e);
    await untilListeners(base + 1);
    abort.abort();
    assert.equal(((await pending) as Error).name, 'AbortError');
    await untilListeners(base);
  });

  for (const [label, query] of [
    ['waitMs above 25000', { since: '0', waitMs: '25001' }],
    ['negative waitMs', { since: '0', waitMs: '-1' }],
    ['waitMs not a number', { since: '0', waitMs: 'soon' }],
    ['fractional waitMs', { since: '0', waitMs: '1.5' }],
    ['since missing', { waitMs: '0' }],
    ['negative since', { since: '-3', waitMs: '0' }],
  ] as const) {
    it(`bad query (${label}) → 422 INVALID_INPUT, nothing changed`, async () => {
      const before = storeDigest(t.bridge.services.store);
      const res = await t.client.raw('GET', '/library/changes', { query });
      assert.equal(res.status, 422);
      assert.equal(res.json<{ error: { code: string } }>().error.code, 'INVALID_INPUT');
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  }

  it('needs the token', async () => {
    const res = await t.anonymous.raw('GET', '/library/changes', { query: { since: '0', waitMs: '0' } });
    assert.equal(res.status, 401);
  });
});
