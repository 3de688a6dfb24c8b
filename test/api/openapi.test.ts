import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { allRoutes } from '../../src/server/api/routes';
import { operationId } from '../../src/server/api/system/openapi';
import { BRIDGE_API_VERSION } from '../../src/server/version';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { checkBody, ResponseDriftError, routeFor, takeDrifts } from '../helpers/responseCheck';

/** ESM-only package: loaded with import() from this CommonJS test. */
const validate = async (doc: unknown) => {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  return new Validator().validate(doc as Record<string, unknown>);
};

const SPEC = join(__dirname, '../../../shared/spec/bridge-api.md');

/** "METHOD /path" of every row of the contract's Endpoints tables, params normalised to {}. */
function contractRoutes(): string[] {
  const md = readFileSync(SPEC, 'utf8');
  const endpoints = md.slice(md.indexOf('\n## Endpoints'), md.indexOf('\n## Authentication'));
  const out = new Set<string>();
  for (const line of endpoints.split('\n')) {
    const first = /^\|([^|]+)\|/.exec(line)?.[1];
    if (!first) continue;
    for (const m of first.matchAll(/\b(GET|POST) (\/[^\s?|]+)/g)) out.add(`${m[1]} ${m[2]}`);
    // The contract does not show the mind-map print paths; the bridge's are these (issue 9).
    if (/^\s*Mind-map print/.test(first)) {
      out.add('POST /study-sets/{id}/mind-map-print/preview');
      out.add('POST /study-sets/{id}/mind-map-print/export');
    }
  }
  return [...out].map(normalise);
}
const normalise = (route: string) => route.replace(/\{\w+\}/g, '{}');

/**
 * Served but deliberately not in /capabilities: the reference (0.49, desktop)
 * lists 72 routes without POST /pair, which it registers on iPad/iPhone only.
 */
const UNLISTED_BY_DESIGN = new Set(['POST /pair']);

describe('GET /openapi.json is a valid OpenAPI 3.1 document', () => {
  let t: TestBridge;
  let doc: any;
  before(async () => {
    t = await startBridge();
    const res = await t.client.raw('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    doc = res.json();
  });
  after(() => t.stop());

  it('passes @seriousme/openapi-schema-validator as served (no top-level bridgeApiVersion; version in info)', async () => {
    const result = await validate(doc);
    assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.equal(result.valid, true);
    assert.equal(doc.bridgeApiVersion, undefined);
    assert.equal(doc.info.version, BRIDGE_API_VERSION);
    assert.equal(doc.info['x-bridge-api-version'], BRIDGE_API_VERSION);
  });

  it('a document with the old top-level bridgeApiVersion is rejected by the same validator (the check can fail)', async () => {
    const result = await validate({ ...doc, bridgeApiVersion: BRIDGE_API_VERSION });
    assert.equal(result.valid, false);
  });

  it('every operation has a unique operationId derived from method and path, and its 4xx answers', () => {
    const ids = new Set<string>();
    for (const r of allRoutes) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      assert.ok(op, `${r.method} ${r.path}`);
      assert.equal(op.operationId, operationId(r.method, r.path));
      assert.ok(!ids.has(op.operationId), `duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      const codes = Object.keys(op.responses);
      assert.ok(
        codes.some((c) => /^4\d\d$/.test(c)),
        `${r.method} ${r.path} has 4xx answers`,
      );
      assert.ok(codes.includes('403'), `${r.method} ${r.path}: 403 (Origin/Host)`);
      if (r.auth !== 'none') assert.ok(codes.includes('401'), `${r.method} ${r.path}: 401`);
      if (r.confirm && r.confirm !== 'none') assert.match(op.responses['422'].description, /CONFIRM_REQUIRED/);
      if (r.premium) assert.match(op.responses['403'].description, /MAX_REQUIRED/);
      if (r.params) assert.ok(codes.includes('404'), `${r.method} ${r.path}: 404`);
      for (const c of codes.filter((c) => /^4/.test(c))) {
        assert.equal(op.responses[c].content['application/json'].schema.$ref, '#/components/schemas/Error');
      }
    }
    assert.equal(operationId('GET', '/study-sets/{id}/tree'), 'getStudySetsByIdTree');
    assert.equal(operationId('POST', '/notes/{id}/comments/{index}/delete'), 'postNotesByIdCommentsByIndexDelete');
  });

  it("a route's success schema is its declared response plus the wrapper's fields", () => {
    const tree = doc.paths['/study-sets/{id}/tree'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(tree.required.sort(), [
      'bridgeApiVersion',
      'count',
      'nodes',
      'rootNoteId',
      'setRootNoteId',
      'topicid',
    ]);
    assert.equal(tree.properties.ignoredFields.type, 'array');
    assert.deepEqual(tree.properties.nodes.items.properties.parent.type.sort(), ['null', 'string']);
    const guide = doc.paths['/guide'].get.responses['200'].content;
    assert.deepEqual(Object.keys(guide), ['text/markdown']);
    const png = doc.paths['/documents/{id}/pages/{page}/content/{contentId}'].get.responses['200'].content;
    assert.deepEqual(png['image/png'].schema, { type: 'string', format: 'binary' });
  });

  it('every JSON route of the table declares its response schema (or its non-JSON content type)', () => {
    // GET /mcp never succeeds (405 to an MCP client, else 501).
    const missing = allRoutes
      .filter((r) => !r.response && !r.replyType && !(r.method === 'GET' && r.path === '/mcp'))
      .map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(missing, []);
  });
});

describe('GET /openapi.json?path= and ?tag= answer just those routes (a valid document that fits an MCP result)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('?path=/decks/{id}/cards: that path only (GET and POST), same components, valid; far smaller than the whole', async () => {
    const whole = await t.client.raw('GET', '/openapi.json');
    const res = await t.client.raw('GET', '/openapi.json', { query: { path: '/decks/{id}/cards' } });
    assert.equal(res.status, 200);
    const doc = res.json<any>();
    assert.deepEqual(Object.keys(doc.paths), ['/decks/{id}/cards']);
    assert.deepEqual(Object.keys(doc.paths['/decks/{id}/cards']).sort(), ['get', 'post']);
    assert.deepEqual(doc.components, whole.json<any>().components);
    assert.equal(
      doc.info['x-api-fingerprint'],
      whole.json<any>().info['x-api-fingerprint'],
      "the fingerprint is the whole table's",
    );
    assert.equal((await validate(doc)).valid, true);
    const post = doc.paths['/decks/{id}/cards'].post;
    assert.ok(post.requestBody.content['application/json'].schema.properties.cards, 'the body schema is there');
    assert.ok(
      post.responses['200'].content['application/json'].schema.properties.persisted,
      'the response schema is there',
    );
    assert.ok(res.bytes.length * 20 < whole.bytes.length, `${res.bytes.length} vs ${whole.bytes.length} bytes`);
    console.log(
      `      openapi.json: whole ${whole.bytes.length} bytes, ?path=/decks/{id}/cards ${res.bytes.length} bytes`,
    );
  });

  it('?tag=decks: every /decks route and nothing else, each operation tagged; valid', async () => {
    const res = await t.client.raw('GET', '/openapi.json', { query: { tag: 'decks' } });
    const doc = res.json<any>();
    const expected = allRoutes
      .filter((r) => r.path.startsWith('/decks'))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const got = Object.entries(doc.paths)
      .flatMap(([p, ops]: [string, any]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    assert.deepEqual(got, expected);
    for (const ops of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(ops)) assert.deepEqual(op.tags, ['decks']);
    assert.equal((await validate(doc)).valid, true);
    console.log(`      openapi.json?tag=decks: ${res.bytes.length} bytes`);
  });

  it('a path or tag that names nothing → 404 ROUTE_NOT_FOUND listing the tags; a concrete id is not a declared path', async () => {
    for (const query of [
      { path: '/nope' },
      { tag: 'nope' },
      { path: '/decks/ABC/cards' },
      { path: '/decks/{id}/cards', tag: 'notes' },
    ]) {
      const res = await t.client.raw('GET', '/openapi.json', { query });
      assert.equal(res.status, 404, JSON.stringify(query));
      const err = res.json<any>().error;
      assert.equal(err.code, 'ROUTE_NOT_FOUND');
      assert.ok(err.details.tags.includes('decks'));
    }
  });
});

describe('GET /capabilities lists every route of the contract (spec/bridge-api.md)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('each "METHOD /path" of the Endpoints tables is listed (path params compared as {})', async () => {
    const contract = contractRoutes();
    assert.ok(contract.length >= 70, `parsed ${contract.length} contract routes`);
    const caps = await t.client.capabilities();
    const listed = new Set(caps.routes.map((r) => normalise(`${r.method} ${r.path}`)));
    const missing = contract.filter((r) => !listed.has(r) && !UNLISTED_BY_DESIGN.has(r));
    assert.deepEqual(missing, [], `contract routes missing from /capabilities: ${missing.join(', ')}`);
    // The exemption is for a route served but unlisted, not for a missing one.
    for (const r of UNLISTED_BY_DESIGN)
      assert.ok(
        allRoutes.some((d) => normalise(`${d.method} ${d.path}`) === r && d.listed === false),
        r,
      );
  });
});

describe('the test-side response check', () => {
  const tree = allRoutes.find((r) => r.method === 'GET' && r.path === '/study-sets/{id}/tree')!;
  const node = {
    noteid: 'A',
    parent: null,
    depth: 0,
    level: 0,
    childCount: 0,
    subMapId: null,
    isSubMapRoot: false,
    title: 'Root',
    displayTitle: 'Root',
    folded: false,
    colorIndex: null,
    fillIndex: null,
    hasExcerpt: false,
    page: null,
  };
  const good = { bridgeApiVersion: '1.0', topicid: 'T', rootNoteId: 'A', setRootNoteId: 'A', nodes: [node], count: 1 };

  it('finds the route of a concrete path (a literal segment beats a parameter)', () => {
    assert.equal(routeFor('GET', '/bridge/v1/study-sets/X/tree'), tree);
    assert.equal(routeFor('POST', '/bridge/v1/notes/batch-get')?.path, '/notes/batch-get');
    assert.equal(routeFor('POST', '/bridge/v1/notes/N/comments/2/delete')?.path, '/notes/{id}/comments/{index}/delete');
    assert.equal(routeFor('GET', '/bridge/v1/nowhere'), undefined);
  });

  it('accepts a conforming body, extra fields included', () => {
    assert.equal(checkBody('tree', tree.response!, { ...good, somethingNew: 1 }), undefined);
  });

  it('fails a declared field of the wrong type, a missing required one, and a missing bridgeApiVersion', () => {
    const wrongType = checkBody('tree', tree.response!, { ...good, count: '1' });
    assert.deepEqual(
      wrongType?.issues.map((i) => i.path),
      ['count'],
    );
    const { setRootNoteId: _gone, ...missing } = good;
    assert.deepEqual(
      checkBody('tree', tree.response!, missing)?.issues.map((i) => i.path),
      ['setRootNoteId'],
    );
    const nested = checkBody('tree', tree.response!, { ...good, nodes: [{ ...node, folded: 'no' }] });
    assert.deepEqual(
      nested?.issues.map((i) => i.path),
      ['nodes.0.folded'],
    );
    const { bridgeApiVersion: _v, ...unwrapped } = good;
    assert.deepEqual(
      checkBody('tree', tree.response!, unwrapped)?.issues.map((i) => i.path),
      ['bridgeApiVersion'],
    );
  });

  it('a real answer that drifts from its declaration fails the client call', async function () {
    if (!(globalThis.fetch as { responseChecked?: boolean }).responseChecked) this.skip(); // run without the .mocharc.json hook
    const t = await startBridge();
    const route = allRoutes.find((r) => r.method === 'GET' && r.path === '/library/study-sets')!;
    const declared = route.response!;
    try {
      await t.client.request('GET', '/library/study-sets'); // conforms
      route.response = declared.extend({ studySets: z.string() });
      await assert.rejects(t.client.request('GET', '/library/study-sets'), (e: unknown) => {
        assert.ok(e instanceof ResponseDriftError);
        assert.match(e.message, /GET \/library\/study-sets: studySets: /);
        return true;
      });
    } finally {
      route.response = declared;
      takeDrifts(); // this drift was provoked: the root hook must not fail this test for it
      await t.stop();
    }
  });
});
