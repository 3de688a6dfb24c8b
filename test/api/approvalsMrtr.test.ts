import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card, newSet } from './noteEditsFixture';
import { libraryDigest } from './approvalsFixture';

const MODERN = '2026-07-28';
const CAN_ASK = { elicitation: { form: {} } };

/**
 * Approvals on the 2026-07-28 generation, on the wire: a held call answers
 * input_required (an elicitation the client puts to the person), and the
 * retried call carries the answer and the signed requestState.
 */
describe('approvals over MCP 2026-07-28: input requests instead of a held stream', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let id = 0;
  const agentToken = () => (t.client as unknown as { token: string }).token;
  const store = () => t.bridge.services.store;
  const visible = (noteid: string) =>
    store().get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE noteid = ? AND hidden = 0', [noteid])!.n === 1;

  async function callTool(
    args: Record<string, unknown>,
    extra: Record<string, unknown> = {},
    token = agentToken(),
    caps: Record<string, unknown> = CAN_ASK,
  ) {
    const params = {
      name: 'study_call',
      arguments: args,
      ...extra,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'wire', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': caps,
      },
    };
    const r = await fetch(`${t.bridge.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${token}`,
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'study_call',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params }),
    });
    const text = await r.text();
    const line = text.split('\n').find((l) => l.startsWith('data: '));
    return JSON.parse(line ? line.slice(6) : text);
  }
  const answer = (state: string, action: 'accept' | 'decline') => ({
    requestState: state,
    inputResponses: { approve: action === 'accept' ? { action, content: {} } : { action } },
  });
  const bodyOf = (res: any) => JSON.parse(res.result.content[0].text);

  async function forcedRestore(title: string) {
    const { topicid } = await newSet(t, title);
    await card(t, topicid, { title: 'Before' });
    const snap = await t.client.call('POST /study-sets/{id}/snapshots', {
      params: { id: topicid },
      body: { description: 'b' },
    });
    const later = await card(t, topicid, { title: 'After the snapshot' });
    const args = {
      method: 'POST',
      path: `/snapshots/${snap.snapshotId}/restore`,
      body: { force: true, confirm: true },
    };
    return { args, later, topicid };
  }

  before(async () => {
    t = await startBridge({ approvals: 'destructive' });
  });
  after(() => t.stop());

  it('a forced restore returns the input request; deny changes nothing', async () => {
    const { args, later } = await forcedRestore('Denied restore');
    const before = libraryDigest(store());
    const asked = await callTool(args);
    assert.equal(asked.result.resultType, 'input_required', JSON.stringify(asked));
    const q = asked.result.inputRequests.approve;
    assert.equal(q.method, 'elicitation/create');
    assert.match(q.params.message, /^Allow test agent to restore "/);
    assert.equal(libraryDigest(store()), before, 'asking changes nothing');
    const denied = await callTool(args, answer(asked.result.requestState, 'decline'));
    assert.equal(denied.result.isError, true);
    assert.equal(bodyOf(denied).state, 'denied');
    assert.equal(libraryDigest(store()), before);
    assert.ok(visible(later));
  });

  it('allow runs the restore once; the same answer again does not run it twice', async () => {
    const { args, later, topicid } = await forcedRestore('Allowed restore');
    const asked = await callTool(args);
    const allowed = await callTool(args, answer(asked.result.requestState, 'accept'));
    assert.equal(allowed.result.isError, false, JSON.stringify(allowed));
    assert.equal(visible(later), false, 'the card made after the snapshot is gone');
    const again = await card(t, topicid, { title: 'Made after the restore' });
    const replay = await callTool(args, answer(asked.result.requestState, 'accept'));
    assert.equal(replay.result.isError, false);
    assert.ok(visible(again), 'a replayed answer did not restore a second time');
    const runs = store().get<{ n: number }>(
      "SELECT count(*) AS n FROM approvals WHERE path = '/snapshots/{id}/restore' AND state = 'allowed'",
    )!.n;
    assert.equal(runs, 1);
  });

  it("the person's decision in VS Code wins over the client's later answer", async () => {
    const { args, later } = await forcedRestore('Decided in VS Code');
    const asked = await callTool(args);
    const pending = store().get<{ approval_id: string }>(
      "SELECT approval_id FROM approvals WHERE state = 'pending' ORDER BY rowid DESC LIMIT 1",
    )!;
    await t.bridge.services.approvals.decide(pending.approval_id, 'deny', 'vscode');
    const before = libraryDigest(store());
    const late = await callTool(args, answer(asked.result.requestState, 'accept'));
    assert.equal(late.result.isError, true);
    assert.equal(bodyOf(late).state, 'denied');
    assert.equal(libraryDigest(store()), before);
    assert.ok(visible(later));
  });

  it('a forged or borrowed requestState is refused (-32602) and changes nothing', async () => {
    const { args } = await forcedRestore('Forged state');
    const asked = await callTool(args);
    const other = await t.bridge.services.tokens.issue('other agent', 'write');
    const before = libraryDigest(store());
    const forged = await callTool(args, answer(`${asked.result.requestState}x`, 'accept'));
    assert.equal(forged.error?.code, -32602, JSON.stringify(forged));
    const borrowed = await callTool(args, answer(asked.result.requestState, 'accept'), other.token);
    assert.equal(borrowed.error?.code, -32602, JSON.stringify(borrowed));
    assert.equal(libraryDigest(store()), before);
  });

  it('a client without elicitation gets the 202 body, as an HTTP agent does', async () => {
    const { args } = await forcedRestore('Cannot ask');
    const res = await callTool(args, {}, agentToken(), {});
    const body = bodyOf(res);
    assert.equal(body.state, 'pending');
    assert.match(body.summary.text, /^test agent: restore /);
  });
});
