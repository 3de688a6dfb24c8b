import assert from 'node:assert/strict';
import type { RouteDecl } from '../../src/server/api/http/routeTable';
import { allRoutes } from '../../src/server/api/routes';
import { routeScope } from '../../src/server/domain/security/scopes';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { rawRequest, type RawResult } from '../helpers/rawHttp';
import { storeDigest } from '../helpers/storeDigest';

/** Builds a request for `route` from its declared example (path params, query, body). */
function requestFor(route: RouteDecl, port: number, headers: Record<string, string>, withConfirm = false) {
  const ex = route.example ?? {};
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(ex.params?.[name] ?? 'X'));
  const query = new URLSearchParams(ex.query ?? {});
  if (withConfirm && route.confirm === 'query') query.set('confirm', '1');
  const qs = query.toString();
  const body =
    route.method === 'POST' && !route.rawBody
      ? JSON.stringify({ ...ex.body, ...(withConfirm && route.confirm === 'body' ? { confirm: true } : {}) })
      : undefined;
  return rawRequest(port, {
    method: route.method,
    path: `/bridge/v1${path}${qs ? `?${qs}` : ''}`,
    headers: { Host: `127.0.0.1:${port}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body,
  });
}

function assertError(res: RawResult, status: number, code: string, what: string) {
  assert.equal(res.status, status, `${what}: status ${res.status} ${res.text.slice(0, 200)}`);
  const body = res.json();
  assert.equal(body.error?.code, code, `${what}: code`);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 10, `${what}: a clear message`);
  assert.equal(typeof body.error.retryable, 'boolean');
  assert.equal(typeof body.bridgeApiVersion, 'string');
  assert.ok(!/\n\s+at /.test(res.text), `${what}: no stack in the body`);
}

describe('refusal matrix over every declared route', function () {
  let on: TestBridge;
  let off: TestBridge;
  const agentTokens: Record<'read' | 'write', string> = { read: '', write: '' };
  before(async () => {
    on = await startBridge();
    off = await startBridge({ premium: false });
    for (const scope of ['read', 'write'] as const)
      agentTokens[scope] = (await on.bridge.services.tokens.issue(`matrix ${scope}`, scope)).token;
  });
  after(async () => {
    await on.stop();
    await off.stop();
  });

  it('the table has routes, each declared once', () => {
    const keys = allRoutes.map((r) => `${r.method} ${r.path}`);
    assert.ok(keys.length >= 9);
    assert.equal(new Set(keys).size, keys.length, 'duplicate declarations');
  });

  for (const route of allRoutes) {
    const name = `${route.method} ${route.path}`;
    describe(name, () => {
      const auth = () => ({ Authorization: `Bearer ${on.bridge.token}` });

      if (route.auth !== 'none') {
        it('no token → 401 UNAUTHORIZED with WWW-Authenticate, nothing changed', async () => {
          const before = storeDigest(on.bridge.services.store);
          const res = await requestFor(route, on.bridge.port, {});
          assertError(res, 401, 'UNAUTHORIZED', name);
          assert.match(String(res.headers['www-authenticate']), /^Bearer/);
          assert.equal(storeDigest(on.bridge.services.store), before);
        });
        it('bad token → 401 UNAUTHORIZED', async () => {
          const before = storeDigest(on.bridge.services.store);
          const res = await requestFor(route, on.bridge.port, { Authorization: `Bearer ${on.bridge.token}x` }, true);
          assertError(res, 401, 'UNAUTHORIZED', name);
          assert.equal(storeDigest(on.bridge.services.store), before);
        });
      }

      // /mcp takes a page on this machine (browser MCP clients), so there only a foreign page is refused.
      const origin = route.path === '/mcp' ? 'http://evil.example.com' : 'http://127.0.0.1:8080';
      it(`Origin ${origin} → 403 FORBIDDEN_ORIGIN, even with a valid token and confirm`, async () => {
        const before = storeDigest(on.bridge.services.store);
        const res = await requestFor(route, on.bridge.port, { ...auth(), Origin: origin }, true);
        assertError(res, 403, 'FORBIDDEN_ORIGIN', name);
        assert.equal(storeDigest(on.bridge.services.store), before);
      });

      it('foreign Host → 403 FORBIDDEN_HOST (DNS rebinding), also a loopback name with another port', async () => {
        const before = storeDigest(on.bridge.services.store);
        for (const host of [
          `evil.example:${on.bridge.port}`,
          `127.0.0.1:${on.bridge.port + 1}`,
          `127.0.0.1.nip.io:${on.bridge.port}`,
        ]) {
          const res = await requestFor(route, on.bridge.port, { ...auth(), Host: host }, true);
          assertError(res, 403, 'FORBIDDEN_HOST', `${name} Host ${host}`);
        }
        assert.equal(storeDigest(on.bridge.services.store), before);
      });

      if (route.auth !== 'none') {
        const need = routeScope(route);
        for (const scope of ['read', 'write'] as const) {
          if (need === 'owner' || (need === 'write' && scope === 'read')) {
            it(`${scope} agent token, confirmed → 403 SCOPE_REQUIRED (needs ${need}), nothing changed`, async () => {
              const before = storeDigest(on.bridge.services.store);
              const res = await requestFor(
                route,
                on.bridge.port,
                { Authorization: `Bearer ${agentTokens[scope]}` },
                true,
              );
              assertError(res, 403, 'SCOPE_REQUIRED', name);
              assert.equal(res.json().error.details.scopeRequired, need);
              assert.equal(storeDigest(on.bridge.services.store), before);
            });
          }
        }
        if (need === 'write' && route.confirm && route.confirm !== 'none') {
          it('read agent token, unconfirmed: the dry-run answers (never SCOPE_REQUIRED), nothing changed', async () => {
            const before = storeDigest(on.bridge.services.store);
            const res = await requestFor(route, on.bridge.port, { Authorization: `Bearer ${agentTokens.read}` }, false);
            assert.notEqual(res.json().error?.code, 'SCOPE_REQUIRED', `${name}: ${res.text.slice(0, 200)}`);
            assert.ok([404, 422].includes(res.status), `${name}: ${res.status} ${res.text.slice(0, 200)}`);
            assert.equal(storeDigest(on.bridge.services.store), before);
          });
        }
      }

      if (route.premium) {
        it('premium off → 403 MAX_REQUIRED, nothing changed', async () => {
          const before = storeDigest(off.bridge.services.store);
          const res = await requestFor(route, off.bridge.port, { Authorization: `Bearer ${off.bridge.token}` }, true);
          assertError(res, 403, 'MAX_REQUIRED', name);
          assert.equal(storeDigest(off.bridge.services.store), before);
        });
      }

      if (route.confirm && route.confirm !== 'none') {
        it(`missing confirm (${route.confirm}) → 422 CONFIRM_REQUIRED, nothing changed`, async () => {
          const before = storeDigest(on.bridge.services.store);
          const res = await requestFor(route, on.bridge.port, auth(), false);
          if (route.dryRun && res.status === 404) {
            // A true dry-run validates its objects: the example names none.
            assert.match(res.json().error.code, /NOT_FOUND$/);
          } else {
            assertError(res, 422, 'CONFIRM_REQUIRED', name);
            assert.equal(res.json().error.details.confirm, route.confirm);
          }
          assert.equal(storeDigest(on.bridge.services.store), before);
        });
      }
    });
  }
});
