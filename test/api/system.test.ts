import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { BridgeClient } from '../../src/client/bridgeClient';
import { allRoutes } from '../../src/server/api/routes';
import { buildGuide } from '../../src/server/api/system/guide';
import { proofField, proofOf } from '../../src/server/api/system/routeProof';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { rawRequest } from '../helpers/rawHttp';
import { routeOf } from '../helpers/guideRequests';

describe('system routes', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('GET /status answers without a token, authorized only with a valid one', async () => {
    const anon = await t.anonymous.status();
    assert.equal(anon.authorized, false);
    assert.equal(anon.instanceNonce, t.bridge.instanceNonce);
    assert.match(anon.apiFingerprint, /^[0-9a-f]{12}$/);
    assert.equal(anon.guide.route, '/guide');
    assert.equal(anon.guide.rotatesToken, false);
    assert.equal(anon.guide.usesExistingBearer, true);
    assert.match(anon.guide.refreshPolicy, /sha256/);
    assert.equal((anon as any).bridgeApiVersion, '1.0');
    assert.equal((await t.client.status()).authorized, true);
    const bad = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: 'sbt0.nope' });
    assert.equal((await bad.status()).authorized, false);
  });

  it('GET /capabilities is derived from the route table', async () => {
    const caps = await t.client.capabilities();
    const listed = allRoutes.filter((r) => r.listed !== false);
    assert.equal(caps.routeCount, listed.length);
    assert.equal(caps.routes.length, listed.length);
    for (const r of listed) {
      const c = caps.routes.find((x) => x.method === r.method && x.path === r.path);
      assert.ok(c, `${r.method} ${r.path} listed`);
      assert.equal(c.requiresMax, !!r.premium);
      assert.equal(c.confirm, r.confirm ?? 'none');
      assert.equal(c.dryRun, !!r.dryRun);
    }
    assert.ok(!caps.routes.some((r) => r.path === '/pair'), 'POST /pair is not in the capability list');
    assert.deepEqual(caps.presets, ['book-breakdown', 'source-structure', 'exam-general', 'dictionary']);
    assert.deepEqual(caps.anchorModes, ['page_text', 'block']);
    assert.equal(caps.fillIndexSemantics['2'], 'stroke_only');
    assert.equal(caps.accessPolicy.userDataStillRequiresBearerToken, true);
    assert.equal(caps.limits.pagesPerCall, 60);
    assert.equal(caps.apiFingerprint, (await t.anonymous.status()).apiFingerprint);
  });

  it('GET /guide is Markdown whose sha256 is the one /status announces; GET /guide/routes has the generated route table', async () => {
    const md = await t.client.guide();
    const status = await t.client.status();
    assert.equal(createHash('sha256').update(md).digest('hex'), status.guide.sha256);
    assert.match(md, /^# Study Bridge/);
    assert.ok(Buffer.byteLength(md) <= 8 * 1024, `${Buffer.byteLength(md)} bytes`);
    const table = await t.client.raw('GET', '/guide/routes');
    assert.equal(table.status, 200);
    assert.match(table.headers.get('content-type') ?? '', /^text\/markdown/);
    for (const r of allRoutes)
      assert.ok(table.text().includes(`| ${r.method} | \`${r.path}\``), `the table lists ${r.method} ${r.path}`);
    for (const section of [
      '## Start',
      '## Rules',
      '## Read a book',
      '## Split a book into cards',
      '## Make and review a deck',
      '## Edit cards safely',
      '## Search',
      '## More',
    ])
      assert.ok(md.includes(section), section);
    assert.ok(md.includes('`GET /guide/routes`'), 'the guide says where the table is');
  });

  it('GET /context: nothing open in headless mode, then what the UI host opened', async () => {
    const ctx = await t.client.context();
    assert.equal(ctx.available, false);
    assert.equal(ctx.reason, 'nothing_open');
    const set = await t.client.createStudySet('Context set');
    await t.bridge.services.ui.open({ topicid: set.topicid, title: set.title });
    const after = await t.client.context();
    assert.equal(after.available, true);
    assert.deepEqual(after.studySet, { topicid: set.topicid, title: 'Context set', isDeck: false });
  });

  it('unknown route → 404 NOT_FOUND JSON', async () => {
    const res = await t.client.raw('GET', '/no/such/route');
    assert.equal(res.status, 404);
    assert.equal(res.json<any>().error.code, 'NOT_FOUND');
    assert.match(res.json<any>().error.message, /capabilities/);
  });

  it('GET /mcp → 501', async () => {
    const res = await t.client.raw('GET', '/mcp');
    assert.equal(res.status, 501);
    assert.equal(res.json<any>().error.code, 'NOT_IMPLEMENTED');
  });

  it('malformed JSON → 400 INVALID_JSON; a JSON array → 400; nothing created', async () => {
    const before = (await t.client.listStudySets()).length;
    for (const body of ['{"title": "x", confirm: true', '[1,2]', '"str"']) {
      const res = await t.client.raw('POST', '/library/study-sets', { body });
      assert.equal(res.status, 400, body);
      assert.equal(res.json<any>().error.code, 'INVALID_JSON');
    }
    assert.equal((await t.client.listStudySets()).length, before);
  });

  it('a JSON body over the limit → 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.client.raw('POST', '/library/study-sets', {
      body: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024), confirm: true }),
    });
    assert.equal(res.status, 413);
    assert.equal(res.json<any>().error.code, 'PAYLOAD_TOO_LARGE');
  });

  it('a loopback Host without our port is refused; loopback names with it pass', async () => {
    for (const Host of ['localhost', 'localhost:80']) {
      const res = await rawRequest(t.bridge.port, { method: 'GET', path: '/bridge/v1/status', headers: { Host } });
      assert.equal(res.status, 403, `Host "${Host}"`);
      assert.equal(res.json().error.code, 'FORBIDDEN_HOST');
    }
    for (const Host of [`localhost:${t.bridge.port}`, `[::1]:${t.bridge.port}`]) {
      const res = await rawRequest(t.bridge.port, { method: 'GET', path: '/bridge/v1/status', headers: { Host } });
      assert.equal(res.status, 200, `Host "${Host}"`);
    }
  });

  it('an internal error is a bare 500 without a stack', async () => {
    const route = allRoutes.find((r) => r.path === '/context')!;
    const ui = t.bridge.services.ui;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- put back on the same object below
    const original = ui.context;
    ui.context = async () => {
      throw new Error('secret internal detail');
    };
    try {
      const res = await t.client.raw('GET', route.path);
      assert.equal(res.status, 500);
      assert.equal(res.json<any>().error.code, 'INTERNAL');
      assert.ok(!res.text().includes('secret internal detail'));
      assert.ok(!res.text().includes(' at '));
    } finally {
      ui.context = original;
    }
  });
});

describe('GET /openapi.json', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('describes every declared route with its gates and schemas', async () => {
    const doc = await t.client.call('GET /openapi.json');
    assert.equal(doc.openapi, '3.1.0');
    // The OpenAPI document is walked as plain JSON (its operation objects have no declared type here).
    const paths = doc.paths as Record<string, Record<string, any> | undefined>;
    for (const r of allRoutes) {
      const op = paths[r.path]?.[r.method.toLowerCase()];
      assert.ok(op, `${r.method} ${r.path}`);
      assert.equal(op['x-requires-max'], !!r.premium);
      assert.equal(op['x-confirm'], r.confirm ?? 'none');
      assert.deepEqual(op.security, r.auth === 'none' ? [] : [{ bearer: [] }]);
    }
    const create = paths['/library/study-sets']!.post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(create.properties).sort(), ['confirm', 'title']);
    assert.deepEqual(create.required, ['title']);
  });
});

describe('the guide names only routes this bridge serves', () => {
  it('every "METHOD /path" in the prose is a declared route', () => {
    const guide = buildGuide(allRoutes);
    for (const md of [guide.markdown, ...Object.values(guide.topics)]) {
      const mentions = [...md.split('## Routes')[0].matchAll(/`(GET|POST) (\/[^\s`?]*)/g)].map(
        (m) => [m[1], m[2].replace(/<[^>]+>/g, 'X')] as const,
      );
      assert.ok(mentions.length >= 1);
      for (const [method, path] of mentions)
        assert.ok(routeOf(allRoutes, method, path), `the guide mentions ${method} ${path}, which is not declared`);
    }
  });
});

describe("the guide's proof fields are what the routes answer (#21)", () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('every row of the route table names the proof its response schema declares; each is a true-only or boolean field of the published success schema', async () => {
    const md = (await t.client.raw('GET', '/guide/routes')).text();
    const doc = (await t.client.raw('GET', '/openapi.json')).json<any>();
    const rows = [...md.matchAll(/^\| (GET|POST) \| `([^`]+)` \| \w+ \| \w+ \| [^|]+ \| ([^|]+) \|/gm)];
    assert.equal(rows.length, allRoutes.length);
    let proved = 0;
    for (const [, method, path, cell] of rows) {
      const route = allRoutes.find((r) => r.method === method && r.path === path)!;
      const field = proofField(route);
      assert.equal(cell.trim(), field ? `\`${field}:true\`` : '—', `${method} ${path}`);
      if (!field) continue;
      proved++;
      const schema = doc.paths[path][method.toLowerCase()].responses['200'].content['application/json'].schema;
      const prop = schema.properties[field];
      assert.ok(prop, `${method} ${path}: ${field} is in the success schema`);
      assert.ok(
        prop.const === true || prop.type === 'boolean',
        `${method} ${path}: ${field} is ${JSON.stringify(prop)}`,
      );
      assert.ok(schema.required.includes(field), `${method} ${path}: ${field} is always answered`);
    }
    assert.ok(proved >= 20, `${proved} routes carry a proof`);
  });

  it('the prose names each proof as the route table does: deck cards → persisted:true (never isDeck), a new set → isStudySet:true', async () => {
    const prose = await t.client.guide();
    assert.match(prose, /`POST \/decks\/<deckId>\/cards \{[^`]*\}` → `persisted:true`/);
    assert.doesNotMatch(prose, /`POST \/decks\/<deckId>\/cards \{[^`]*\}` → `isDeck:true`/);
    assert.match(
      prose,
      /`POST \/library\/study-sets \{"title":"Asymptote","confirm":true\}` → `topicid`, `isStudySet:true`/,
    );
    assert.match(prose, /`POST \/decks \{[^`]*\}` → `deckId`, `isDeck:true`/);
    assert.equal(proofOf(allRoutes, 'POST /decks/{id}/cards'), '`persisted:true`');
    assert.equal(proofOf(allRoutes, 'POST /decks'), '`isDeck:true`');
    assert.throws(() => proofOf(allRoutes, 'GET /decks'), /declares no proof field/);
    assert.throws(() => proofOf(allRoutes, 'POST /nowhere'), /is not a route/);
  });
});
