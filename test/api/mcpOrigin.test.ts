import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
};

/**
 * Origin on /mcp: a page on this machine (browser inspectors, MCP App hosts)
 * may connect with a token; any other page is refused, and the REST routes
 * keep "no Origin at all".
 */
describe('MCP: loopback Origin on /mcp, every other Origin refused', function () {
  this.timeout(60_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge();
  });
  after(() => t.stop());

  // node:http, not fetch: fetch does not let a caller set Host.
  const post = (path: string, headers: Record<string, string>, body: unknown = INIT, method = 'POST') =>
    new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: t.bridge.port,
          path: `/bridge/v1${path}`,
          method,
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            Host: `127.0.0.1:${t.bridge.port}`,
            ...headers,
          },
        },
        (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: data, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(body === null ? undefined : JSON.stringify(body));
    });
  const auth = () => ({ Authorization: `Bearer ${t.bridge.token}` });

  for (const origin of ['http://localhost:6274', 'http://127.0.0.1:5173', 'http://[::1]:3000', 'http://localhost']) {
    it(`${origin} with a token: served`, async () => {
      const res = await post('/mcp', { ...auth(), Origin: origin });
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /"protocolVersion":"2025-11-25"/);
      assert.equal(res.headers['access-control-allow-origin'], origin, 'the page may read the answer');
    });
  }

  for (const origin of [
    'http://evil.example.com',
    'http://localhost.evil.example.com',
    'https://localhost:6274',
    'http://127.0.0.2:80',
    'null',
    'http://localhost:6274/path',
  ]) {
    it(`${origin}: 403 FORBIDDEN_ORIGIN, nothing changed`, async () => {
      const before = storeDigest(t.bridge.services.store);
      const res = await post('/mcp', { ...auth(), Origin: origin });
      assert.equal(res.status, 403, res.body);
      assert.equal(JSON.parse(res.body).error.code, 'FORBIDDEN_ORIGIN');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  }

  it("a loopback page's CORS preflight (no token) is answered 204 with the MCP headers allowed", async () => {
    const res = await post(
      '/mcp',
      {
        Origin: 'http://localhost:6274',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version',
      },
      null,
      'OPTIONS',
    );
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], 'http://localhost:6274');
    assert.match(String(res.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(res.headers['access-control-allow-headers']), /MCP-Protocol-Version/);
  });

  it('a foreign page gets no preflight, and the REST routes none either', async () => {
    const evil = await post('/mcp', { Origin: 'http://evil.example.com' }, null, 'OPTIONS');
    assert.equal(evil.status, 403);
    assert.equal(evil.headers['access-control-allow-origin'], undefined);
    const rest = await post('/library/study-sets', { Origin: 'http://localhost:6274' }, null, 'OPTIONS');
    assert.equal(rest.status, 403);
    assert.equal(rest.headers['access-control-allow-origin'], undefined);
  });

  it('a loopback page without the token: 401', async () => {
    const res = await post('/mcp', { Origin: 'http://localhost:6274' });
    assert.equal(res.status, 401);
  });

  it('DNS rebinding: a loopback Origin with a foreign Host is still 403 FORBIDDEN_HOST', async () => {
    const res = await post('/mcp', {
      ...auth(),
      Origin: 'http://localhost:6274',
      Host: `evil.example.com:${t.bridge.port}`,
    });
    assert.equal(res.status, 403);
    assert.equal(JSON.parse(res.body).error.code, 'FORBIDDEN_HOST');
  });

  it('the REST routes keep the contract: a loopback Origin is 403 there', async () => {
    const before = storeDigest(t.bridge.services.store);
    const res = await post(
      '/library/study-sets',
      { ...auth(), Origin: 'http://localhost:6274' },
      { title: 'No', confirm: true },
    );
    assert.equal(res.status, 403);
    assert.equal(JSON.parse(res.body).error.code, 'FORBIDDEN_ORIGIN');
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('logging/setLevel is answered on 2025-11-25 (the server declares logging)', async () => {
    const c = new Client({ name: 'logger', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${t.bridge.baseUrl}/mcp`), { requestInit: { headers: auth() } }),
    );
    try {
      assert.ok(c.getServerCapabilities()?.logging);
      assert.deepEqual(await c.setLoggingLevel('debug'), {});
    } finally {
      await c.close();
    }
  });
});
