import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { card, newSet } from './noteEditsFixture';
import { libraryDigest } from './approvalsFixture';

/** Issue 18 §2, MCP: a client that declared elicitation is asked (elicitation/create) with the dry-run summary; others get the 202 body. */
describe('approvals over MCP: elicitation/create for a held study_call', function () {
  this.timeout(120_000);
  let t: TestBridge;
  const token = () => (t.client as unknown as { token: string }).token;
  const connect = async (capabilities: Record<string, unknown>) => {
    const c = new Client({ name: 'elicit-agent', version: '1.0.0' }, { capabilities });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token()}` } },
      }),
    );
    return c;
  };
  const visible = (noteid: string) =>
    t.bridge.services.store.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE noteid = ? AND hidden = 0', [
      noteid,
    ])!.n === 1;
  const textOf = (r: any) => JSON.parse(r.content[0].text);

  before(async () => {
    t = await startBridge({ approvals: 'destructive' });
  });
  after(() => t.stop());

  it('accept: the client is asked with the summary, and the delete runs once as the agent', async () => {
    const { topicid } = await newSet(t, 'MCP set');
    const a = await card(t, topicid, { title: 'Asked about' });
    const c = await connect({ elicitation: {} });
    const asked: string[] = [];
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: {} };
    });
    try {
      const res: any = await c.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/notes/delete', body: { noteIds: [a], confirm: true } },
      });
      assert.equal(asked.length, 1);
      assert.match(asked[0], /^test agent: delete 1 card\n/);
      assert.equal(res.isError, false, JSON.stringify(res));
      assert.deepEqual(
        textOf(res).deleted.map((d: any) => d.noteid),
        [a],
      );
      assert.equal(visible(a), false);
      const row = t.bridge.services.store.get<{ state: string; decided_by: string }>(
        'SELECT state, decided_by FROM approvals ORDER BY rowid DESC LIMIT 1',
      )!;
      assert.deepEqual(row, { state: 'allowed', decided_by: 'mcp-elicitation' });
    } finally {
      await c.close();
    }
  });

  it('decline: denied, nothing changed', async () => {
    const { topicid } = await newSet(t, 'MCP declined');
    const a = await card(t, topicid, { title: 'Kept' });
    const c = await connect({ elicitation: {} });
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    try {
      const before = libraryDigest(t.bridge.services.store);
      const res: any = await c.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/notes/delete', body: { noteIds: [a], confirm: true } },
      });
      assert.equal(res.isError, true);
      assert.equal(textOf(res).state, 'denied');
      assert.equal(libraryDigest(t.bridge.services.store), before);
      assert.ok(visible(a));
    } finally {
      await c.close();
    }
  });

  it('a client without elicitation gets the 202 body (pending) and is never asked', async () => {
    const { topicid } = await newSet(t, 'MCP plain');
    const a = await card(t, topicid, { title: 'Pending' });
    const c = await connect({});
    try {
      const res: any = await c.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/notes/delete', body: { noteIds: [a], confirm: true } },
      });
      const body = textOf(res);
      assert.equal(body.state, 'pending');
      assert.match(body.approvalId, /^apr_/);
      assert.ok(visible(a));
    } finally {
      await c.close();
    }
  });
});
