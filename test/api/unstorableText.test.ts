import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';

/** Text the store cannot hold exactly is refused with 422 before anything is written, never stored mangled. */
describe('unstorable text (lone surrogates, NUL) → 422 UNSTORABLE_TEXT, nothing created', function () {
  this.timeout(60_000);
  let child: ChildBridge;
  let client: BridgeClient;
  let setId: string;
  before(async () => {
    const dataDir = tempDir('sb-unstorable-');
    child = await spawnBridge(['--data', dataDir, '--port', '0']);
    client = new BridgeClient({ baseUrl: child.baseUrl, token: readFileSync(join(dataDir, 'token'), 'utf8').trim() });
    setId = (await client.createStudySet('Text')).topicid;
  });
  after(async () => {
    child?.child.kill('SIGKILL');
    await child?.exited;
  });

  const cardCount = async () =>
    (await client.request<{ nodes: unknown[] }>('GET', `/study-sets/${setId}/tree`)).nodes.length;

  for (const [what, title] of [
    ['a lone high surrogate', 'Broken \ud800 title'],
    ['a lone low surrogate', '\udc00'],
    ['NUL', 'nul\u0000inside'],
  ] as const) {
    it(`a card title with ${what} → 422 with the field's path; the card does not exist`, async () => {
      const before = await cardCount();
      const res = await client.raw('POST', `/study-sets/${setId}/notes`, {
        body: { title, text: 'fine text', confirm: true },
      });
      assert.equal(res.status, 422, res.text());
      const err = res.json<any>().error;
      assert.equal(err.code, 'UNSTORABLE_TEXT');
      assert.deepEqual([err.details.location, err.details.path], ['body', 'title']);
      assert.equal(await cardCount(), before);
      const found = await client.call('GET /search', { query: { q: 'title', scope: 'notes' } });
      assert.ok(!JSON.stringify(found).includes('Broken'), 'not in search either');
    });
  }

  it('a well-formed surrogate pair (emoji) is stored exactly', async () => {
    const res = await client.raw('POST', `/study-sets/${setId}/notes`, {
      body: { title: 'Sun ☀️ and 𝄞', confirm: true },
    });
    assert.equal(res.status, 200, res.text());
    const tree = await client.request<{ nodes: Array<{ title: string }> }>('GET', `/study-sets/${setId}/tree`);
    assert.ok(tree.nodes.some((n) => n.title === 'Sun ☀️ and 𝄞'));
  });

  it('nested: the path names the array element', async () => {
    const res = await client.raw('POST', '/library/study-sets', {
      body: { title: 'ok', confirm: true, extra: [{ a: 'x' }, { b: 'y\u0000' }] },
    });
    assert.equal(res.status, 422);
    assert.equal(res.json<any>().error.details.path, 'extra.1.b');
  });

  it('NUL in a query parameter → 422', async () => {
    const res = await client.raw('GET', '/search', { query: { q: 'a\u0000b' } });
    assert.equal(res.status, 422, res.text());
    assert.deepEqual(
      [res.json<any>().error.code, res.json<any>().error.details.location],
      ['UNSTORABLE_TEXT', 'query'],
    );
  });

  it('MCP study_call with a lone surrogate → the 422 error, and no set is created', async () => {
    const mcp = new Client({ name: 'test', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${child.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${client.token}` } },
      }),
    );
    try {
      const before = (await client.listStudySets()).length;
      const out: any = await mcp.callTool({
        name: 'study_call',
        arguments: { method: 'POST', path: '/library/study-sets', body: { title: 'mcp \udbff set', confirm: true } },
      });
      assert.equal(out.isError, true);
      assert.equal(JSON.parse(out.content[0].text).error.code, 'UNSTORABLE_TEXT');
      assert.equal((await client.listStudySets()).length, before);
    } finally {
      await mcp.close();
    }
  });
});
