import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { BridgeClient } from '../../src/client/bridgeClient';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { card, newSet } from './noteEditsFixture';
import { libraryDigest, untilState } from './approvalsFixture';

/** Issue 18 §2 over HTTP, policy destructive: who waits, who decides, and that a held call runs once or not at all. */
describe('approvals: the person approves what cannot be undone (policy destructive)', function () {
  this.timeout(120_000);
  const dataDir = tempDir('sb-approvals-');
  let t: TestBridge;
  let writer: { tokenId: string; token: string };
  let agent: BridgeClient;
  let reader: BridgeClient;
  const store = () => t.bridge.services.store;
  const visible = (noteid: string) =>
    store().get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE noteid = ? AND hidden = 0', [noteid])!.n === 1;
  const opCount = () => store().get<{ n: number }>('SELECT count(*) AS n FROM operations')!.n;
  const del = (c: BridgeClient, noteIds: string[], headers: Record<string, string> = {}) =>
    c.raw('POST', '/notes/delete', { body: { noteIds, confirm: true }, headers });

  before(async () => {
    t = await startBridge({ dataDir, approvals: 'destructive' });
    writer = await t.owner.tokens.create('Claude Code', 'write');
    agent = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: writer.token });
    reader = new BridgeClient({
      baseUrl: t.bridge.baseUrl,
      token: (await t.owner.tokens.create('Reader', 'read')).token,
    });
  });
  after(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the owner's delete never waits", async () => {
    const { topicid } = await newSet(t, 'Owner set');
    const a = await card(t, topicid, { title: 'Mine' });
    const res = await del(t.owner, [a]);
    assert.equal(res.status, 200, res.text());
    assert.equal(visible(a), false);
    assert.equal((await t.owner.call('GET /approvals')).approvals.length, 0);
  });

  it('a write agent: 202 with the dry-run, nothing changed; allow runs it exactly once, as the agent', async () => {
    const { topicid } = await newSet(t, 'Agent set');
    const a = await card(t, topicid, { title: 'One' });
    const b = await card(t, topicid, { title: 'Two' });
    const before = libraryDigest(store());
    const ops = opCount();
    const res = await del(agent, [a, b]);
    assert.equal(res.status, 202, res.text());
    const held = res.json<any>();
    assert.match(held.approvalId, /^apr_[0-9a-f]{16}$/);
    assert.equal(held.state, 'pending');
    assert.equal(held.summary.text, 'Claude Code: delete 2 cards');
    assert.equal(held.summary.dryRun.wouldDelete, 2);
    assert.equal(libraryDigest(store()), before, 'a held call changes nothing');
    assert.ok(visible(a) && visible(b));

    const pending = (await t.owner.call('GET /approvals')).approvals;
    assert.deepEqual(
      pending.map((x) => [x.approvalId, x.agent.name, x.path]),
      [[held.approvalId, 'Claude Code', '/notes/delete']],
    );
    assert.equal((await agent.call('GET /approvals/{id}', { params: { id: held.approvalId } })).state, 'pending');
    assert.equal(
      (await t.client.raw('GET', `/approvals/${held.approvalId}`)).status,
      404,
      "another agent does not see this agent's approval",
    );

    const decided = await t.owner.call('POST /approvals/{id}/decide', {
      params: { id: held.approvalId },
      body: { decision: 'allow', confirm: true },
    });
    assert.equal(decided.state, 'allowed');
    assert.equal(decided.result?.status, 200);
    const body = decided.result.body as { deleted: { noteid: string }[] };
    assert.deepEqual(body.deleted.map((d) => d.noteid).sort(), [a, b].sort());
    assert.ok(!visible(a) && !visible(b));
    assert.equal(opCount(), ops + 1, 'run exactly once');
    const last = store().get<{ actor: string; token_id: string }>(
      'SELECT actor, token_id FROM operations ORDER BY op_seq DESC LIMIT 1',
    )!;
    assert.deepEqual(last, { actor: 'agent', token_id: writer.tokenId });

    const again = await t.owner.raw('POST', `/approvals/${held.approvalId}/decide`, {
      body: { decision: 'allow', confirm: true },
    });
    assert.equal(again.status, 409);
    assert.equal(again.json<any>().error.code, 'APPROVAL_DECIDED');
    assert.equal(opCount(), ops + 1);
    const read = await agent.call('GET /approvals/{id}', { params: { id: held.approvalId } });
    assert.equal(read.state, 'allowed');
    assert.deepEqual(read.result, decided.result);
  });

  it('two decisions at once: one runs the call, the other is 409; the call ran once', async () => {
    const { topicid } = await newSet(t, 'Raced');
    const a = await card(t, topicid, { title: 'Once' });
    const ops = opCount();
    const held = (await del(agent, [a])).json<any>();
    const decide = () =>
      t.owner.raw('POST', `/approvals/${held.approvalId}/decide`, { body: { decision: 'allow', confirm: true } });
    const answers = await Promise.all([decide(), decide(), decide()]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409, 409]);
    assert.equal(opCount(), ops + 1);
    assert.equal(visible(a), false);
  });

  it('deny: nothing changed, and the agent reads denied', async () => {
    const { topicid } = await newSet(t, 'Denied set');
    const a = await card(t, topicid, { title: 'Keep me' });
    const before = libraryDigest(store());
    const held = (await del(agent, [a])).json<any>();
    const decided = await t.owner.call('POST /approvals/{id}/decide', {
      params: { id: held.approvalId },
      body: { decision: 'deny', confirm: true },
    });
    assert.equal(decided.state, 'denied');
    assert.equal(decided.result, undefined);
    assert.equal(libraryDigest(store()), before);
    assert.ok(visible(a));
    assert.equal((await agent.call('GET /approvals/{id}', { params: { id: held.approvalId } })).state, 'denied');
  });

  it('an agent deciding its own approval: 403 SCOPE_REQUIRED, still pending, nothing changed', async () => {
    const { topicid } = await newSet(t, 'Self-approval');
    const a = await card(t, topicid, { title: 'Target' });
    const held = (await del(agent, [a])).json<any>();
    const before = storeDigest(store());
    const res = await agent.raw('POST', `/approvals/${held.approvalId}/decide`, {
      body: { decision: 'allow', confirm: true },
    });
    assert.equal(res.status, 403);
    assert.equal(res.json<any>().error.code, 'SCOPE_REQUIRED');
    assert.equal(storeDigest(store()), before);
    assert.equal((await t.owner.call('GET /approvals/{id}', { params: { id: held.approvalId } })).state, 'pending');
    assert.ok(visible(a));
  });

  it('a read agent: 403 SCOPE_REQUIRED before any approval is held; store unchanged', async () => {
    const { topicid } = await newSet(t, 'Read agent');
    const a = await card(t, topicid, { title: 'Safe' });
    const before = storeDigest(store());
    const res = await del(reader, [a]);
    assert.equal(res.status, 403);
    assert.equal(res.json<any>().error.code, 'SCOPE_REQUIRED');
    assert.equal(storeDigest(store()), before, 'no approval row either');
  });

  it('a revoked token: 401, store unchanged', async () => {
    const gone = await t.owner.tokens.create('Short-lived', 'write');
    await t.owner.tokens.revoke(gone.tokenId);
    const { topicid } = await newSet(t, 'Revoked');
    const a = await card(t, topicid, { title: 'Safe' });
    const before = storeDigest(store());
    const res = await del(new BridgeClient({ baseUrl: t.bridge.baseUrl, token: gone.token }), [a]);
    assert.equal(res.status, 401);
    assert.equal(storeDigest(store()), before);
  });

  it('a forged X-Study-Bridge-Actor: user header still waits', async () => {
    const { topicid } = await newSet(t, 'Forged');
    const a = await card(t, topicid, { title: 'Safe' });
    const before = libraryDigest(store());
    const res = await del(agent, [a], { 'X-Study-Bridge-Actor': 'user' });
    assert.equal(res.status, 202);
    assert.equal(libraryDigest(store()), before);
    assert.ok(visible(a));
  });

  it('writes that lose nothing run at once; restore waits only with force; study-set delete says what it loses', async () => {
    const { topicid } = await newSet(t, 'Linear algebra');
    const a = await card(t, topicid, { title: 'Eigen' });
    assert.ok(visible(a), 'card create ran');
    const snap = await agent.call('POST /study-sets/{id}/snapshots', {
      params: { id: topicid },
      body: { description: 'before' },
    });
    const plain = await agent.raw('POST', `/snapshots/${snap.snapshotId}/restore`, { body: { confirm: true } });
    assert.equal(plain.status, 200, plain.text());
    const forced = await agent.raw('POST', `/snapshots/${snap.snapshotId}/restore`, {
      body: { force: true, confirm: true },
    });
    assert.equal(forced.status, 202);
    assert.match(forced.json<any>().summary.text, /^Claude Code: restore /);
    const setDelete = await agent.raw('POST', `/study-sets/${topicid}/delete`, {
      body: { expectedTitle: 'Linear algebra', confirm: true },
    });
    assert.equal(setDelete.status, 202);
    assert.equal(setDelete.json<any>().summary.text, 'Claude Code: delete study set "Linear algebra" with 2 cards');
    const dry = await agent.raw('POST', '/notes/delete', { body: { noteIds: [a] } });
    assert.equal(dry.status, 422, 'a dry-run is never held');
  });

  it('capabilities and OpenAPI show which routes need approval, derived from the declarations', async () => {
    const caps = await t.owner.capabilities();
    const marked = Object.fromEntries(
      caps.routes.filter((r: any) => r.destructive).map((r: any) => [`${r.method} ${r.path}`, r.destructive]),
    );
    assert.equal(marked['POST /notes/delete'], true);
    assert.equal(marked['POST /study-sets/{id}/delete'], true);
    assert.equal(marked['POST /library/documents/{id}/delete'], true);
    assert.equal(marked['POST /tokens/{id}/revoke'], true);
    assert.match(marked['POST /snapshots/{id}/restore'], /force/);
    assert.match(marked['POST /bundles/{id}/submit'], /replaces an earlier import/);
    assert.equal(marked['POST /study-sets/{id}/notes'], undefined);
    assert.equal((caps as any).approvals.policy, 'destructive');
    const api = (await t.owner.raw('GET', '/openapi.json')).json<any>();
    assert.equal(api.paths['/notes/delete'].post['x-destructive'], true);
    assert.ok(api.paths['/notes/delete'].post.responses['202']);
    assert.equal(api.paths['/study-sets/{id}/notes'].post['x-destructive'], false);
  });

  it('a pending approval expires (bridge option approvalTtlMs); deciding then is 409 and nothing changed', async () => {
    const dir = tempDir('sb-approvals-ttl-');
    const short = await startBridge({ dataDir: dir, approvals: 'destructive', limits: { approvalTtlMs: 300 } });
    try {
      const { topicid } = await newSet(short, 'Expiring');
      const a = await card(short, topicid, { title: 'Stays' });
      const before = libraryDigest(short.bridge.services.store);
      const held = (
        await short.client.raw('POST', '/notes/delete', { body: { noteIds: [a], confirm: true } })
      ).json<any>();
      assert.equal(held.state, 'pending');
      await untilState(short.owner, held.approvalId, 'expired');
      const late = await short.owner.raw('POST', `/approvals/${held.approvalId}/decide`, {
        body: { decision: 'allow', confirm: true },
      });
      assert.equal(late.status, 409);
      assert.equal(late.json<any>().error.code, 'APPROVAL_EXPIRED');
      assert.equal(libraryDigest(short.bridge.services.store), before);
      assert.equal((await short.owner.call('GET /approvals')).approvals.length, 0);
    } finally {
      await short.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
