import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BridgeError } from '../../src/server/errors';
import type { RequestLogEntry } from '../../src/server/api/http/app';
import { serverErrorLine } from '../../src/server/api/http/errorMapper';
import { defineRoute } from '../../src/server/api/http/routeTable';
import { allRoutes } from '../../src/server/api/routes';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { BODY_BASE64_MAX_CHARS } from '../../src/server/api/mcp/mcpBudget';
import { storeDigest } from '../helpers/storeDigest';
import { corpusFile } from '../unit/pdfCorpus';
import { createBridge } from '../../src/server/bridge';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';

describe('MCP channel (POST /mcp)', () => {
  let t: TestBridge;
  let client: Client;
  before(async () => {
    t = await startBridge();
    client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${t.bridge.token}` } },
      }),
    );
  });
  after(async () => {
    await client.close();
    await t.stop();
  });

  const text = (r: any) => (r.content as Array<{ type: string; text: string }>)[0].text;

  it('lists exactly study_guide, study_call, study_upload and the two review tools', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), [
      'study_call',
      'study_guide',
      'study_review_grade',
      'study_review_next',
      'study_upload',
    ]);
    const call = tools.find((x) => x.name === 'study_call')!;
    assert.deepEqual(Object.keys(call.inputSchema.properties ?? {}).sort(), [
      'body',
      'bodyBase64',
      'cursor',
      'imageMaxPx',
      'maxBytes',
      'method',
      'path',
      'query',
    ]);
    const upload = tools.find((x) => x.name === 'study_upload')!;
    assert.deepEqual(Object.keys(upload.inputSchema.properties ?? {}).sort(), [
      'filename',
      'folder',
      'path',
      'topicid',
    ]);
    assert.deepEqual(upload.inputSchema.required, ['path']);
    // Tool hints for the owner's (write) session: the guide reads, a call may delete, an upload only adds.
    assert.deepEqual(tools.find((x) => x.name === 'study_guide')!.annotations, {
      title: 'Study Bridge guide',
      readOnlyHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(call.annotations, {
      title: 'Study Bridge route',
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(upload.annotations, {
      title: 'Add a PDF by path',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it("a read token's session lists study_call as read-only and is not offered study_upload", async () => {
    const reader = await t.bridge.services.tokens.issue('read-only agent', 'read');
    const c = new Client({ name: 'read-agent', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${reader.token}` } },
      }),
    );
    try {
      const { tools } = await c.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), ['study_call', 'study_guide', 'study_review_next']);
      assert.deepEqual(tools.find((x) => x.name === 'study_call')!.annotations, {
        title: 'Study Bridge route',
        readOnlyHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
    } finally {
      await c.close();
    }
  });

  it('study_call bodyBase64: a small PDF is uploaded like raw bytes; over the budget the error names study_upload; not base64 → 422', async () => {
    const pdf = readFileSync(corpusFile('CAD.pdf'));
    const r = await client.callTool({
      name: 'study_call',
      arguments: {
        method: 'POST',
        path: '/library/documents/upload',
        query: { filename: 'cad.pdf', confirm: 1 },
        bodyBase64: pdf.toString('base64'),
      },
    });
    assert.notEqual(r.isError, true, text(r));
    const up = JSON.parse(text(r));
    assert.deepEqual(
      [up.created, up.filename, up.bookmd5],
      [true, 'cad.pdf', createHash('md5').update(pdf).digest('hex')],
    );
    await t.bridge.services.extraction.whenReady(up.bookmd5);

    const before = storeDigest(t.bridge.services.store);
    const big = await client.callTool({
      name: 'study_call',
      arguments: {
        method: 'POST',
        path: '/library/documents/upload',
        query: { filename: 'big.pdf', confirm: 1 },
        bodyBase64: 'A'.repeat(BODY_BASE64_MAX_CHARS + 4),
      },
    });
    assert.equal(big.isError, true);
    const bigErr = JSON.parse(text(big)).error;
    assert.equal(bigErr.code, 'MCP_BODY_TOO_LARGE');
    assert.match(bigErr.message, /study_upload/);
    const bad = await client.callTool({
      name: 'study_call',
      arguments: {
        method: 'POST',
        path: '/library/documents/upload',
        query: { filename: 'x.pdf', confirm: 1 },
        bodyBase64: 'not base64!!',
      },
    });
    assert.equal(JSON.parse(text(bad)).error.code, 'INVALID_INPUT');
    const json = await client.callTool({
      name: 'study_call',
      arguments: {
        method: 'POST',
        path: '/library/documents/upload',
        query: { filename: 'x.pdf', confirm: 1 },
        body: { path: '/tmp/x.pdf' },
      },
    });
    assert.equal(JSON.parse(text(json)).error.code, 'RAW_BODY_REQUIRED');
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('study_guide topic answers one workflow with the rows of its routes; an unknown topic names the topics', async () => {
    const full = await t.client.guide();
    const decks = text(await client.callTool({ name: 'study_guide', arguments: { topic: 'decks' } }));
    assert.match(decks, /^# Study Bridge guide: decks/);
    assert.match(decks, /\| POST \| `\/decks\/\{id\}\/reviews` \|/);
    assert.doesNotMatch(decks, /\/bundles\/prepare/);
    assert.ok(decks.length < full.length, `${decks.length} vs ${full.length}`);
    assert.ok(Buffer.byteLength(decks) <= 8 * 1024, "a topic stays within the guide's budget");
    assert.match(
      decks,
      /`POST \/decks\/<deckId>\/reviews \{"cardNoteId":"<cardNoteId>","rating":"good","confirm":true\}`/,
    );
    const upload = text(await client.callTool({ name: 'study_guide', arguments: { topic: 'upload' } }));
    assert.match(upload, /study_upload/);
    assert.match(upload, /\| POST \| `\/library\/documents\/import` \|/);
    const r = await client.callTool({ name: 'study_guide', arguments: { topic: 'nope' } });
    assert.equal(r.isError, true);
    assert.equal(JSON.parse(text(r)).error.code, 'UNKNOWN_TOPIC');
    assert.match(JSON.parse(text(r)).error.message, /decks/);
  });

  it('study_guide returns the same guide as GET /guide', async () => {
    const r = await client.callTool({ name: 'study_guide', arguments: {} });
    assert.equal(text(r), await t.client.guide());
  });

  it('study_call goes through the route table: create a set, then list it', async () => {
    const created = JSON.parse(
      text(
        await client.callTool({
          name: 'study_call',
          arguments: { method: 'POST', path: '/library/study-sets', body: { title: 'Via MCP', confirm: true } },
        }),
      ),
    );
    assert.equal(created.isStudySet, true);
    const listed = JSON.parse(
      text(
        await client.callTool({
          name: 'study_call',
          arguments: { method: 'GET', path: '/library/study-sets', query: { query: 'mcp' } },
        }),
      ),
    );
    assert.deepEqual(
      listed.studySets.map((s: any) => s.topicid),
      [created.topicid],
    );
  });

  it('study_call reports refusals as tool errors with the bridge error body', async () => {
    const r = await client.callTool({
      name: 'study_call',
      arguments: { method: 'POST', path: '/library/study-sets', body: { title: 'no confirm' } },
    });
    assert.equal(r.isError, true);
    assert.equal(JSON.parse(text(r)).error.code, 'CONFIRM_REQUIRED');
    const nf = await client.callTool({ name: 'study_call', arguments: { method: 'GET', path: '/nowhere' } });
    assert.equal(nf.isError, true);
    assert.equal(JSON.parse(text(nf)).error.code, 'NOT_FOUND');
  });

  it('POST /mcp without a token → 401; malformed JSON → 400 INVALID_JSON', async () => {
    const headers = { Accept: 'application/json, text/event-stream' };
    const anon = await t.anonymous.raw('POST', '/mcp', {
      headers,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    assert.equal(anon.status, 401);
    const bad = await t.client.raw('POST', '/mcp', { headers, body: '{"jsonrpc":' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json<any>().error.code, 'INVALID_JSON');
  });
});

describe('request log: only unexpected errors are internal', () => {
  const logged: string[] = [];
  const requests: RequestLogEntry[] = [];
  // Two extra routes: a 5xx thrown on purpose and a bug.
  const routes = [
    ...allRoutes,
    defineRoute({
      method: 'GET',
      path: '/test/deliberate-503',
      summary: 'test only',
      handler: async () => {
        throw new BridgeError('WORKER_UNAVAILABLE', 503, 'The PDF worker is restarting.', undefined, true);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/test/bug',
      summary: 'test only',
      handler: async () => {
        const row = undefined as unknown as { title: string };
        return { title: row.title };
      },
    }),
  ];
  it('GET /mcp 501 and 405 are logged as requests, never as errors', async () => {
    // serverErrorLine: the line the CLI writes for each error it is told about.
    const t2 = await startBridge({
      onError: (e) => logged.push(serverErrorLine(e)),
      onRequest: (e) => requests.push(e),
    });
    try {
      assert.equal((await t2.client.raw('GET', '/mcp')).status, 501);
      assert.equal((await t2.client.raw('GET', '/mcp', { headers: { Accept: 'text/event-stream' } })).status, 405);
    } finally {
      await t2.stop();
    }
    assert.deepEqual(logged, []);
    assert.deepEqual(
      requests.filter((r) => r.path.endsWith('/mcp')).map((r) => [r.method, r.path, r.status]),
      [
        ['GET', '/bridge/v1/mcp', 501],
        ['GET', '/bridge/v1/mcp', 405],
      ],
    );
  });

  it('a BridgeError ≥500 thrown on purpose is one ordinary error line without a stack; a bug is "internal error" with its stack', async () => {
    logged.length = 0;
    const dataDir = tempDir();
    const bridge = await createBridge({ dataDir, port: 0, onError: (e) => logged.push(serverErrorLine(e)) }, routes);
    try {
      const get = (path: string) =>
        fetch(`${bridge.baseUrl}${path}`, { headers: { Authorization: `Bearer ${bridge.token}` } });
      const deliberate = await get('/test/deliberate-503');
      assert.equal(deliberate.status, 503);
      assert.equal((await deliberate.json()).error.code, 'WORKER_UNAVAILABLE');
      assert.deepEqual(logged, ['error: 503 WORKER_UNAVAILABLE: The PDF worker is restarting.']);

      const bug = await get('/test/bug');
      assert.equal(bug.status, 500);
      const body = await bug.json();
      assert.equal(body.error.code, 'INTERNAL');
      assert.ok(!JSON.stringify(body).includes(' at '), 'no stack in the answer');
      assert.equal(logged.length, 2);
      assert.match(
        logged[1],
        /^internal error: TypeError: Cannot read properties of undefined \(reading 'title'\)\n\s+at /,
      );
    } finally {
      await bridge.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
