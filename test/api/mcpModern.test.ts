import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { card, newSet } from './noteEditsFixture';

const MODERN = '2026-07-28';
const META = (caps: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': caps,
});

/** The 2026-07-28 generation on POST /mcp: stateless, no handshake, beside the 2025 one. */
describe('MCP 2026-07-28 (stateless, per-request _meta)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  const agentToken = () => (t.client as unknown as { token: string }).token;
  const url = () => `${t.bridge.baseUrl}/mcp`;
  const connect = async (token: string, capabilities: Record<string, unknown> = {}) => {
    const c = new Client(
      { name: 'modern-agent', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: { pin: MODERN } } },
    );
    await c.connect(
      new StreamableHTTPClientTransport(new URL(url()), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return c;
  };
  // The 2026-07-28 transport mirrors the method in an Mcp-Method header; token '' sends none.
  const rawPost = (
    body: { method: string; [k: string]: unknown },
    headers: Record<string, string> = {},
    token = t.bridge.token,
  ) =>
    fetch(url(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Method': body.method,
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const rpc = async (r: Response) => {
    const text = await r.text();
    const data = r.headers.get('content-type')?.includes('event-stream')
      ? text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6)
      : text;
    return JSON.parse(data);
  };
  const textOf = (r: any) => JSON.parse(r.content[0].text);

  before(async () => {
    t = await startBridge({ approvals: 'destructive' });
  });
  after(() => t.stop());

  it('the v2 client pinned to 2026-07-28 lists the tools with no initialize and no session', async () => {
    const c = await connect(t.bridge.token);
    try {
      assert.equal(c.getNegotiatedProtocolVersion?.() ?? MODERN, MODERN);
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), [
        'study_call',
        'study_guide',
        'study_review_grade',
        'study_review_next',
        'study_upload',
      ]);
      const guide: any = await c.callTool({ name: 'study_guide', arguments: {} });
      assert.match(guide.content[0].text, /Study Bridge/);
    } finally {
      await c.close();
    }
  });

  it('tools/list over raw HTTP: cacheable (ttlMs, private), no Mcp-Session-Id', async () => {
    const r = await rawPost(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META() } },
      { 'MCP-Protocol-Version': MODERN },
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('mcp-session-id'), null);
    const body = await rpc(r);
    assert.equal(body.result.cacheScope, 'private');
    assert.ok(body.result.ttlMs > 0, JSON.stringify(body.result).slice(0, 200));
    assert.equal(body.result.tools.length, 5);
  });

  it('server/discover answers the supported versions and capabilities', async () => {
    const r = await rawPost(
      { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: META() } },
      { 'MCP-Protocol-Version': MODERN },
    );
    assert.equal(r.status, 200);
    const body = await rpc(r);
    assert.ok(body.result.supportedVersions.includes(MODERN), JSON.stringify(body));
    assert.ok(body.result.capabilities.tools);
  });

  it('refusals: a modern header without _meta, header/_meta mismatch, unknown version; nothing changes', async () => {
    const before = storeDigest(t.bridge.services.store);
    const noMeta = await rawPost(
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
      { 'MCP-Protocol-Version': MODERN },
    );
    assert.equal(noMeta.status, 400);
    assert.equal((await rpc(noMeta)).error.code, -32602);
    const mismatch = await rawPost(
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: META() } },
      { 'MCP-Protocol-Version': '2099-01-01' },
    );
    assert.equal(mismatch.status, 400);
    assert.equal((await rpc(mismatch)).error.code, -32020);
    const unknown = await rawPost(
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/list',
        params: { _meta: { ...META(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { 'MCP-Protocol-Version': '2099-01-01' },
    );
    assert.equal(unknown.status, 400);
    const err = (await rpc(unknown)).error;
    assert.equal(err.code, -32022);
    assert.ok(err.data.supported.includes(MODERN));
    const noMethodHeader = await rawPost(
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: META() } },
      { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': '' },
    );
    assert.equal(noMethodHeader.status, 400);
    assert.equal((await rpc(noMethodHeader)).error.code, -32020);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('token and Origin rules are the same: none 401, bad 401, foreign Origin 403', async () => {
    const msg = { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: META() } };
    const h = { 'MCP-Protocol-Version': MODERN };
    assert.equal((await rawPost(msg, h, '')).status, 401);
    assert.equal((await rawPost(msg, h, 'not-a-token')).status, 401);
    assert.equal((await rawPost(msg, { ...h, Origin: 'http://evil.example.com' })).status, 403);
  });

  it('a read token: no study_upload, and a write route is refused by scope as on 2025', async () => {
    const read = await t.bridge.services.tokens.issue('reader', 'read');
    const c = await connect(read.token);
    try {
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), ['study_call', 'study_guide', 'study_review_next']);
      assert.equal(tools.find((x) => x.name === 'study_call')!.annotations?.readOnlyHint, true);
      const res: any = await c.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/library/study-sets', body: { title: 'No', confirm: true } },
      });
      assert.equal(res.isError, true);
      assert.equal(textOf(res).error.code, 'SCOPE_REQUIRED');
    } finally {
      await c.close();
    }
  });

  it('the result budget cuts the same way in both generations', async () => {
    const { topicid } = await newSet(t, 'Budget set');
    for (let i = 0; i < 30; i++) await card(t, topicid, { title: `Card number ${i} ${'x'.repeat(200)}` });
    const args = { method: 'GET', path: `/study-sets/${topicid}/tree`, maxBytes: 2048 };
    const modern = await connect(t.bridge.token);
    const legacy = new LegacyClient({ name: 'legacy', version: '1.0.0' });
    await legacy.connect(
      new LegacyTransport(new URL(url()), { requestInit: { headers: { Authorization: `Bearer ${t.bridge.token}` } } }),
    );
    try {
      const a: any = await modern.callTool({ name: 'study_call', arguments: args });
      const b: any = await legacy.callTool({ name: 'study_call', arguments: args });
      assert.equal(a.content.length, 2, JSON.stringify(a).slice(0, 300));
      assert.equal(JSON.parse(a.content[1].text).truncated, true);
      assert.deepEqual(a.content, b.content);
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it('approvals: a client that can ask gets "Allow test agent to delete 2 cards?"; allow runs it once', async () => {
    const { topicid } = await newSet(t, 'Asked set');
    const a = await card(t, topicid, { title: 'One' });
    const b = await card(t, topicid, { title: 'Two' });
    const c = await connect(agentToken(), { elicitation: { form: {} } });
    const asked: string[] = [];
    c.setRequestHandler('elicitation/create', async (req: any) => {
      asked.push(req.params.message);
      return { action: 'accept', content: {} };
    });
    try {
      const res: any = await c.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/notes/delete', body: { noteIds: [a, b], confirm: true } },
      });
      assert.equal(asked.length, 1);
      assert.match(asked[0], /^Allow test agent to delete 2 cards\?\n/);
      assert.match(asked[0], /What it would do: \{/);
      assert.equal(res.isError, false, JSON.stringify(res));
      assert.deepEqual(
        textOf(res)
          .deleted.map((d: any) => d.noteid)
          .sort(),
        [a, b].sort(),
      );
      const rows = t.bridge.services.store.all<{ state: string; decided_by: string }>(
        "SELECT state, decided_by FROM approvals WHERE path = '/notes/delete' ORDER BY rowid",
      );
      assert.deepEqual(rows.at(-1), { state: 'allowed', decided_by: 'mcp-input' });
    } finally {
      await c.close();
    }
  });

  it('approvals: decline denies and changes nothing', async () => {
    const { topicid } = await newSet(t, 'Declined set');
    const a = await card(t, topicid, { title: 'Kept' });
    const c = await connect(agentToken(), { elicitation: { form: {} } });
    c.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    try {
      const res: any = await c.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/notes/delete', body: { noteIds: [a], confirm: true } },
      });
      assert.equal(res.isError, true);
      assert.equal(textOf(res).state, 'denied');
      const n = t.bridge.services.store.get<{ n: number }>(
        'SELECT count(*) AS n FROM notes WHERE noteid = ? AND hidden = 0',
        [a],
      )!.n;
      assert.equal(n, 1);
    } finally {
      await c.close();
    }
  });

  it('approvals: a client that cannot ask gets the 202 body (pending, approvalId)', async () => {
    const { topicid } = await newSet(t, 'Unasked set');
    const a = await card(t, topicid, { title: 'Waiting' });
    const c = await connect(agentToken());
    try {
      const res: any = await c.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/notes/delete', body: { noteIds: [a], confirm: true } },
      });
      const body = textOf(res);
      assert.equal(body.state, 'pending');
      assert.match(body.approvalId, /\S/);
    } finally {
      await c.close();
    }
  });
});
