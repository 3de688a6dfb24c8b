// The official MCP Inspector (CLI mode, Streamable HTTP) against the bridge on
// port 0: the client that lost the tools when GET /mcp answered 501.
import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { callTool, inspector, textOf } from '../helpers/mcpInspectorCli';
import { storeDigest } from '../helpers/storeDigest';

describe('MCP Inspector CLI against the bridge (real client)', function () {
  this.timeout(180_000);
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('GET /mcp asking for an event stream → 405 Allow: POST with the error body; any other GET /mcp → 501', async () => {
    const stream = await t.client.raw('GET', '/mcp', { headers: { Accept: 'text/event-stream' } });
    assert.equal(stream.status, 405);
    assert.equal(stream.headers.get('allow'), 'POST');
    assert.equal(stream.json<any>().error.code, 'METHOD_NOT_ALLOWED');
    assert.deepEqual(stream.json<any>().error.details, { allow: ['POST'] });
    const plain = await t.client.raw('GET', '/mcp', { headers: { Accept: 'application/json' } });
    assert.equal(plain.status, 501);
    assert.equal(plain.headers.get('allow'), null);
    assert.equal(plain.json<any>().error.code, 'NOT_IMPLEMENTED');
    const anon = await t.anonymous.raw('GET', '/mcp', { headers: { Accept: 'text/event-stream' } });
    assert.equal(anon.status, 401, 'the token gate still comes first');
  });

  it('tools/list ten times in a row lists the five tools every time', async () => {
    for (let run = 1; run <= 10; run++) {
      const { tools } = await inspector(t, ['--method', 'tools/list']);
      assert.deepEqual(
        tools.map((x: { name: string }) => x.name).sort(),
        ['study_call', 'study_guide', 'study_review_grade', 'study_review_next', 'study_upload'],
        `run ${run}`,
      );
    }
  });

  it('tools/call study_guide returns the guide GET /guide serves', async () => {
    const r = await callTool(t, 'study_guide', []);
    assert.notEqual(r.isError, true);
    assert.equal(textOf(r), await t.client.guide());
  });

  it('tools/call study_call: a read, a refused write that changes nothing, a confirmed write read back over HTTP', async () => {
    const empty = await callTool(t, 'study_call', ['method=GET', 'path=/library/study-sets']);
    assert.notEqual(empty.isError, true);
    assert.deepEqual(JSON.parse(textOf(empty)).studySets, []);

    const before = storeDigest(t.bridge.services.store);
    const refused = await callTool(t, 'study_call', [
      'method=POST',
      'path=/library/study-sets',
      'body={"title":"No confirm"}',
    ]);
    assert.equal(refused.isError, true);
    assert.equal(JSON.parse(textOf(refused)).error.code, 'CONFIRM_REQUIRED');
    assert.equal(storeDigest(t.bridge.services.store), before);

    const created = JSON.parse(
      textOf(
        await callTool(t, 'study_call', [
          'method=POST',
          'path=/library/study-sets',
          'body={"title":"Made by the Inspector","confirm":true}',
        ]),
      ),
    );
    assert.equal(created.title, 'Made by the Inspector');
    const card = JSON.parse(
      textOf(
        await callTool(t, 'study_call', [
          'method=POST',
          `path=/study-sets/${created.topicid}/notes`,
          'body={"title":"Inspector card","text":"written over MCP","confirm":true}',
        ]),
      ),
    );
    assert.equal(card.persisted, true);

    const sets = await t.client.listStudySets();
    assert.deepEqual(
      sets.map((s) => [s.topicid, s.title]),
      [[created.topicid, 'Made by the Inspector']],
    );
    const tree = await t.client.call('GET /study-sets/{id}/tree', { params: { id: created.topicid } });
    assert.deepEqual(
      tree.nodes.map((n) => [n.noteid, n.parent, n.title]),
      [
        [created.rootNoteId, null, 'Made by the Inspector'],
        [card.noteid, created.rootNoteId, 'Inspector card'],
      ],
    );

    const listed = JSON.parse(
      textOf(
        await callTool(t, 'study_call', ['method=GET', 'path=/library/study-sets', 'query={"query":"inspector"}']),
      ),
    );
    assert.deepEqual(
      listed.studySets.map((s: any) => s.topicid),
      [created.topicid],
    );
  });

  it('a card render comes back as MCP image content (base64 PNG, the same bytes as over HTTP); as PDF, an embedded resource', async () => {
    const set = await t.client.createStudySet('Rendered over MCP');
    const card = await t.client.call('POST /study-sets/{id}/notes', {
      params: { id: set.topicid },
      body: { title: 'Photosynthesis', text: 'Light energy becomes chemical energy.', confirm: true },
    });
    const path = `/notes/${card.noteid}/render`;

    const r = await callTool(t, 'study_call', ['method=GET', `path=${path}`, 'query={"width":400}']);
    assert.notEqual(r.isError, true);
    assert.equal(r.content.length, 1);
    assert.equal(r.content[0].type, 'image');
    assert.equal(r.content[0].mimeType, 'image/png');
    const png = Buffer.from(r.content[0].data!, 'base64');
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.equal(png.readUInt32BE(16), 400, 'IHDR width: the requested width');
    const direct = await t.client.raw('GET', path, { query: { width: 400 } });
    assert.equal(direct.status, 200);
    assert.equal(png.readUInt32BE(20), Number(direct.headers.get('x-render-height')));
    assert.ok(png.equals(direct.bytes), 'the tool returns the route bytes unchanged');

    const pdf = await callTool(t, 'study_call', ['method=GET', `path=${path}`, 'query={"format":"pdf"}']);
    assert.notEqual(pdf.isError, true);
    assert.deepEqual(
      pdf.content.map((c) => c.type),
      ['text', 'resource'],
    );
    assert.match(pdf.content[0].text!, /a PDF of \d+ bytes/);
    const resource = (pdf.content[1] as any).resource;
    assert.equal(resource.mimeType, 'application/pdf');
    assert.equal(resource.uri, `studybridge:/bridge/v1${path}?format=pdf`);
    const bytes = Buffer.from(resource.blob, 'base64');
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.equal(bytes.length, (await t.client.raw('GET', path, { query: { format: 'pdf' } })).bytes.length);
  });

  it('a refused render is a tool error carrying the bridge error body', async () => {
    const r = await callTool(t, 'study_call', [
      'method=GET',
      'path=/notes/00000000-0000-4000-8000-000000000009/render',
    ]);
    assert.equal(r.isError, true);
    assert.equal(JSON.parse(textOf(r)).error.code, 'NOTE_NOT_FOUND');
  });
});
