import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { ServerSentEvent } from '../../src/client/sseParser';
import { followEvents } from '../../src/client/eventsApi';
import { startBridge, tempDir } from '../helpers/bridgeFixture';
import { card, newSet } from './noteEditsFixture';
import { libraryDigest, untilState } from './approvalsFixture';

/** Issue 18 §2: the other policies, a restart, approval events, and GET /operations?tokenId=. */
describe('approvals: policies, restart, events, operation log by token', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const dir = () => {
    const d = tempDir('sb-approvals-policy-');
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('all-writes: every agent write waits (a card create too), reads and the owner do not', async () => {
    const t = await startBridge({ dataDir: dir(), approvals: 'all-writes' });
    try {
      const { topicid } = await t.owner.createStudySet('Owner made');
      const res = await t.client.raw('POST', `/study-sets/${topicid}/notes`, {
        body: { title: 'Held card', confirm: true },
      });
      assert.equal(res.status, 202, res.text());
      assert.equal(res.json<any>().summary.text, `test agent: POST /study-sets/{id}/notes`);
      assert.equal((await t.client.raw('GET', `/study-sets/${topicid}/tree`)).status, 200);
      const search = await t.client.raw('POST', '/notes/batch-get', { body: { noteIds: [] } });
      assert.notEqual(search.status, 202, 'a read-scoped POST is never held');
      const decided = await t.owner.call('POST /approvals/{id}/decide', {
        params: { id: res.json<any>().approvalId },
        body: { decision: 'allow', confirm: true },
      });
      assert.equal(decided.result?.status, 200);
      assert.equal((decided.result?.body as { persisted?: unknown } | undefined)?.persisted, true);
      const n = t.bridge.services.store.get<{ n: number }>(
        `SELECT count(*) AS n FROM notes WHERE topicid = ? AND title = 'Held card'`,
        [topicid],
      )!.n;
      assert.equal(n, 1);
    } finally {
      await t.stop();
    }
  });

  it('never (the headless default): an agent delete runs at once', async () => {
    const t = await startBridge({ dataDir: dir() });
    try {
      const { topicid } = await newSet(t, 'No approvals');
      const a = await card(t, topicid, { title: 'Gone' });
      const res = await t.client.raw('POST', '/notes/delete', { body: { noteIds: [a], confirm: true } });
      assert.equal(res.status, 200);
      assert.equal((await t.client.call('GET /capabilities')).approvals?.policy, 'never');
    } finally {
      await t.stop();
    }
  });

  it('restart: a pending approval survives and runs once when allowed; an allowed result stays readable', async () => {
    const dataDir = dir();
    let t = await startBridge({ dataDir, approvals: 'destructive' });
    const { topicid } = await newSet(t, 'Across restarts');
    const a = await card(t, topicid, { title: 'Survivor' });
    const held = (await t.client.raw('POST', '/notes/delete', { body: { noteIds: [a], confirm: true } })).json<any>();
    const before = libraryDigest(t.bridge.services.store);
    await t.bridge.close();
    t = await startBridge({ dataDir, approvals: 'destructive' });
    try {
      assert.equal(libraryDigest(t.bridge.services.store), before);
      const pending = (await t.owner.call('GET /approvals')).approvals;
      assert.deepEqual(
        pending.map((x) => x.approvalId),
        [held.approvalId],
      );
      const decided = await t.owner.call('POST /approvals/{id}/decide', {
        params: { id: held.approvalId },
        body: { decision: 'allow', confirm: true },
      });
      assert.equal(decided.result?.status, 200);
      await t.bridge.close();
      t = await startBridge({ dataDir, approvals: 'destructive' });
      const read = await t.client.call('GET /approvals/{id}', { params: { id: held.approvalId } });
      assert.equal(read.state, 'allowed');
      assert.deepEqual(read.result, decided.result);
      const ops = t.bridge.services.store.get<{ n: number }>(
        `SELECT count(*) AS n FROM operations WHERE kind = 'delete' AND topicid = ?`,
        [topicid],
      )!.n;
      assert.equal(ops, 1, 'ran once, not again at the restart');
    } finally {
      await t.stop();
    }
  });

  it('a stop while an allowed call ran: at the next start it is answered APPROVAL_INTERRUPTED, never run again', async () => {
    const dataDir = dir();
    let t = await startBridge({ dataDir, approvals: 'destructive' });
    const { topicid } = await newSet(t, 'Interrupted');
    const a = await card(t, topicid, { title: 'Maybe' });
    const held = (await t.client.raw('POST', '/notes/delete', { body: { noteIds: [a], confirm: true } })).json<any>();
    // What a crash between "allowed" (written first) and the run's answer leaves behind.
    await t.bridge.services.store.write((tx) =>
      tx.run(`UPDATE approvals SET state = 'allowed', decided_by = 'owner' WHERE approval_id = ?`, [held.approvalId]),
    );
    const before = libraryDigest(t.bridge.services.store);
    await t.bridge.close();
    t = await startBridge({ dataDir, approvals: 'destructive' });
    try {
      const read = await t.owner.call('GET /approvals/{id}', { params: { id: held.approvalId } });
      assert.equal(read.state, 'allowed');
      assert.equal(
        (read.result?.body as { error?: { code?: string } } | undefined)?.error?.code,
        'APPROVAL_INTERRUPTED',
      );
      assert.equal(libraryDigest(t.bridge.services.store), before, 'not run at the restart');
    } finally {
      await t.stop();
    }
  });

  it('approval events arrive on GET /events: pending, then allowed', async () => {
    const t = await startBridge({ dataDir: dir(), approvals: 'destructive' });
    const abort = new AbortController();
    const events: ServerSentEvent[] = [];
    let wake = () => undefined as void;
    const following = followEvents(t.owner, { signal: abort.signal, onEvent: (e) => (events.push(e), wake()) }).catch(
      () => undefined,
    );
    const until = async (pred: () => boolean) => {
      while (!pred()) await new Promise<void>((r) => (wake = r));
    };
    try {
      await until(() => events.some((e) => e.event === 'open'));
      const { topicid } = await newSet(t, 'Evented');
      const a = await card(t, topicid, { title: 'Watched' });
      const held = (await t.client.raw('POST', '/notes/delete', { body: { noteIds: [a], confirm: true } })).json<any>();
      const approvalEvents = () => events.filter((e) => e.event === 'approval').map((e) => JSON.parse(e.data));
      await until(() => approvalEvents().some((d) => d.approvalId === held.approvalId && d.state === 'pending'));
      await t.owner.request('POST', `/approvals/${held.approvalId}/decide`, {
        body: { decision: 'allow', confirm: true },
      });
      await until(
        () => approvalEvents().filter((d) => d.approvalId === held.approvalId && d.state === 'allowed').length === 2,
      );
      assert.deepEqual(
        approvalEvents()
          .filter((d) => d.approvalId === held.approvalId)
          .map((d) => d.state),
        ['pending', 'allowed', 'allowed'],
        'pending; allowed (before the run); allowed again when the result is saved',
      );
    } finally {
      abort.abort();
      await t.stop();
      await following;
    }
  });

  it('GET /operations?tokenId= answers what that agent changed, with the snapshot to go back to; owner only', async () => {
    const t = await startBridge({ dataDir: dir() });
    try {
      const tokenId = t.bridge.services.tokens.list().find((x) => x.name === 'test agent')!.tokenId;
      const { topicid } = await newSet(t, 'Audited');
      const snap = await t.client.call('POST /study-sets/{id}/snapshots', {
        params: { id: topicid },
        body: { description: 'before the agent' },
      });
      const a = await card(t, topicid, { title: 'By the agent' });
      await t.owner.request('POST', `/study-sets/${topicid}/notes`, {
        body: { title: 'By the person', confirm: true },
      });
      const mine = (await t.owner.call('GET /operations', { query: { tokenId } })).operations;
      assert.ok(mine.length >= 1);
      assert.ok(mine.every((o) => o.tokenId === tokenId && o.actor === 'agent' && o.agentName === 'test agent'));
      const create = mine.find((o) => o.noteIds.includes(a));
      assert.ok(create, 'the create is listed');
      assert.equal(create.kind, 'create');
      assert.equal(create.restoreTo?.snapshotId, snap.snapshotId);
      const person = (await t.owner.call('GET /operations', { query: { tokenId: 'owner' } })).operations;
      assert.ok(person.length === 1 && person[0].actor === 'user' && person[0].tokenId === null);
      const refused = await t.client.raw('GET', '/operations', { query: { tokenId } });
      assert.equal(refused.status, 403);
      assert.equal(refused.json<any>().error.code, 'SCOPE_REQUIRED');
      assert.equal((await t.owner.raw('GET', '/operations', { query: { tokenId: 'nope' } })).status, 422);
    } finally {
      await t.stop();
    }
  });

  it('a held call whose agent token is revoked before allow answers 401 in its result and changes nothing', async () => {
    const t = await startBridge({ dataDir: dir(), approvals: 'destructive' });
    try {
      const other = await t.owner.tokens.create('Doomed', 'write');
      const { topicid } = await newSet(t, 'Revoked before allow');
      const a = await card(t, topicid, { title: 'Kept' });
      const res = await fetch(`${t.bridge.baseUrl}/notes/delete`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${other.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ noteIds: [a], confirm: true }),
      });
      const held = await res.json();
      await t.owner.tokens.revoke(other.tokenId);
      const before = libraryDigest(t.bridge.services.store);
      const decided = await t.owner.call('POST /approvals/{id}/decide', {
        params: { id: held.approvalId },
        body: { decision: 'allow', confirm: true },
      });
      assert.equal(decided.result?.status, 401);
      assert.equal(libraryDigest(t.bridge.services.store), before);
      await untilState(t.owner, held.approvalId, 'allowed');
    } finally {
      await t.stop();
    }
  });
});
