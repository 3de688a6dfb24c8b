import assert from 'node:assert/strict';
import { BridgeClient } from '../../src/client/bridgeClient';
import { freshGroups, groupNotice } from '../../src/client/approvalGroups';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

/**
 * Several agent changes pending at once reach the person as one notification
 * per agent (freshGroups, which the VS Code prompts use): grouped from the
 * real bridge's GET /approvals, by agent token, in arrival order; asked calls
 * are not asked again; an agent whose prompt is open waits for the next
 * round; "Deny all" of a group leaves none of its calls pending and nothing run.
 */

describe('approvals: several pending changes make one notification per agent', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let first: BridgeClient;
  let second: BridgeClient;

  const agent = async (name: string) =>
    new BridgeClient({ baseUrl: t.bridge.baseUrl, token: (await t.owner.tokens.create(name, 'write')).token });
  /** An outline import the all-writes policy holds: 202, nothing written yet. */
  const held = async (client: BridgeClient, title: string) => {
    const r = await client.raw('POST', '/library/study-sets/import', {
      body: { format: 'md', title, content: `# ${title}\n- one card\n`, confirm: true },
    });
    assert.equal(r.status, 202, r.text());
    return r.json<{ approvalId: string }>().approvalId;
  };
  const setTitles = async () => (await t.owner.call('GET /library/study-sets')).studySets.map((s) => s.title);

  before(async () => {
    t = await startBridge({ approvals: 'all-writes' });
    first = await agent('Busy agent');
    second = await agent('Quiet agent');
  });
  after(() => t.stop());

  it('three calls of one agent and one of another: two groups, of 3 and of 1, each naming its calls', async () => {
    const busy = [await held(first, 'Set A'), await held(first, 'Set B')];
    const quiet = await held(second, 'Set Q');
    busy.push(await held(first, 'Set C'));
    const pending = await t.owner.approvals.pending();
    assert.equal(pending.length, 4);
    const groups = freshGroups(pending, new Set(), new Set());
    assert.deepEqual(
      groups.map((g) => g.map((a) => a.approvalId)),
      [busy, [quiet]],
    );
    const notice = groupNotice(groups[0]);
    assert.match(notice.message, /^Study Bridge: agent "Busy agent" asks for 3 changes, e\.g\. /);
    assert.equal(notice.detail.split('\n').length, 3);
    for (const [i, line] of notice.detail.split('\n').entries()) assert.match(line, /^Busy agent: /, `call ${i}`);
    assert.equal(groups[1][0].agent.name, 'Quiet agent');
  });

  it('asked calls are not grouped again; an agent with a prompt open waits; Deny all leaves nothing pending or run', async () => {
    const pending = await t.owner.approvals.pending();
    const asked = new Set(pending.map((a) => a.approvalId));
    assert.deepEqual(freshGroups(pending, asked, new Set()), []);
    // A new call of the busy agent while its prompt is open: not asked now, asked alone once the prompt closes.
    const later = await held(first, 'Set D');
    const now = await t.owner.approvals.pending();
    const busyToken = now.find((a) => a.approvalId === later)!.agent.tokenId;
    assert.deepEqual(freshGroups(now, asked, new Set([busyToken])), []);
    assert.deepEqual(
      freshGroups(now, asked, new Set()).map((g) => g.map((a) => a.approvalId)),
      [[later]],
    );
    // Deny all of the busy agent's group.
    const group = freshGroups(now, new Set(), new Set()).find((g) => g[0].agent.tokenId === busyToken)!;
    assert.equal(group.length, 4);
    for (const a of group) assert.equal((await t.owner.approvals.decide(a.approvalId, 'deny')).state, 'denied');
    const left = await t.owner.approvals.pending();
    assert.deepEqual(
      left.map((a) => a.agent.name),
      ['Quiet agent'],
    );
    const titles = await setTitles();
    for (const title of ['Set A', 'Set B', 'Set C', 'Set D', 'Set Q']) assert.ok(!titles.includes(title), title);
  });
});
