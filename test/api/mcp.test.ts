import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';

describe('MCP channel (POST /mcp)', () => {
  let t: TestBridge;
  let client: Client;
  before(async () => {
    t = await startBridge();
    client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${t.bridge.token}` } } }),
    );
  });
  after(async () => {
    await client.close();
    await t.stop();
  });

  const text = (r: any) => (r.content as Array<{ type: string; text: string }>)[0].text;

  it('lists exactly study_guide and study_call', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), ['study_call', 'study_guide']);
    const call = tools.find((x) => x.name === 'study_call')!;
    assert.deepEqual(Object.keys(call.inputSchema.properties ?? {}).sort(), ['body', 'method', 'path', 'query']);
  });

  it('study_guide returns the same guide as GET /guide', async () => {
    const r = await client.callTool({ name: 'study_guide', arguments: {} });
    assert.equal(text(r), await t.client.guide());
  });

  it('study_call goes through the route table: create a set, then list it', async () => {
    const created = JSON.parse(text(await client.callTool({ name: 'study_call', arguments: { method: 'POST', path: '/library/study-sets', body: { title: 'Via MCP', confirm: true } } })));
    assert.equal(created.isStudySet, true);
    const listed = JSON.parse(text(await client.callTool({ name: 'study_call', arguments: { method: 'GET', path: '/library/study-sets', query: { query: 'mcp' } } })));
    assert.deepEqual(listed.studySets.map((s: any) => s.topicid), [created.topicid]);
  });

  it('study_call reports refusals as tool errors with the bridge error body', async () => {
    const r = await client.callTool({ name: 'study_call', arguments: { method: 'POST', path: '/library/study-sets', body: { title: 'no confirm' } } });
    assert.equal(r.isError, true);
    assert.equal(JSON.parse(text(r)).error.code, 'CONFIRM_REQUIRED');
    const nf = await client.callTool({ name: 'study_call', arguments: { method: 'GET', path: '/nowhere' } });
    assert.equal(nf.isError, true);
    assert.equal(JSON.parse(text(nf)).error.code, 'NOT_FOUND');
  });

  it('POST /mcp without a token → 401; malformed JSON → 400 INVALID_JSON', async () => {
    const headers = { Accept: 'application/json, text/event-stream' };
    const anon = await t.anonymous.raw('POST', '/mcp', { headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    assert.equal(anon.status, 401);
    const bad = await t.client.raw('POST', '/mcp', { headers, body: '{"jsonrpc":' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json<any>().error.code, 'INVALID_JSON');
  });
});
