// The official MCP Inspector (CLI mode, Streamable HTTP) against the bridge on
// port 0: the client that lost the tools when GET /mcp answered 501.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { upload } from './documentsFixture';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { projectRoot } from '../helpers/childBridge';
import { storeDigest } from '../helpers/storeDigest';

const inspectorBin = join(projectRoot, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  isError?: boolean;
}

/** One Inspector CLI run; its stdout is the JSON answer of the method. */
function inspector(t: TestBridge, args: string[]): Promise<any> {
  const argv = [inspectorBin, '--cli', `${t.bridge.baseUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${t.bridge.token}`, ...args];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { timeout: 60_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      // Exit code 5: the tool answered isError:true (said on stderr); the result is still on stdout.
      const toolError = err?.code === 5 && stderr.includes('"tool_is_error"');
      if (err && !toolError) return reject(new Error(`mcp-inspector ${args.join(' ')} failed (${err.code ?? err.signal}): ${stderr}${stdout}`));
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`mcp-inspector printed no JSON: ${stdout} ${stderr}`));
      }
    });
  });
}

const callTool = (t: TestBridge, tool: string, toolArgs: string[]): Promise<ToolResult> =>
  inspector(t, ['--method', 'tools/call', '--tool-name', tool, ...toolArgs.flatMap((a) => ['--tool-arg', a])]);

const textOf = (r: ToolResult) => {
  assert.equal(r.content[0].type, 'text', JSON.stringify(r).slice(0, 300));
  return r.content[0].text!;
};

/** A transparent PNG with one opaque red square: the "ink" of a page part. */
function redInk(): Buffer {
  const canvas = createCanvas(200, 100);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ff0000';
  ctx.fillRect(50, 25, 100, 50);
  return canvas.encodeSync('png');
}

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

  it('tools/list ten times in a row lists both tools every time', async () => {
    for (let run = 1; run <= 10; run++) {
      const { tools } = await inspector(t, ['--method', 'tools/list']);
      assert.deepEqual(tools.map((x: { name: string }) => x.name).sort(), ['study_call', 'study_guide'], `run ${run}`);
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
    const refused = await callTool(t, 'study_call', ['method=POST', 'path=/library/study-sets', 'body={"title":"No confirm"}']);
    assert.equal(refused.isError, true);
    assert.equal(JSON.parse(textOf(refused)).error.code, 'CONFIRM_REQUIRED');
    assert.equal(storeDigest(t.bridge.services.store), before);

    const created = JSON.parse(textOf(await callTool(t, 'study_call', ['method=POST', 'path=/library/study-sets', 'body={"title":"Made by the Inspector","confirm":true}'])));
    assert.equal(created.title, 'Made by the Inspector');
    const card = JSON.parse(
      textOf(await callTool(t, 'study_call', ['method=POST', `path=/study-sets/${created.topicid}/notes`, 'body={"title":"Inspector card","text":"written over MCP","confirm":true}'])),
    );
    assert.equal(card.persisted, true);

    const sets = await t.client.listStudySets();
    assert.deepEqual(sets.map((s) => [s.topicid, s.title]), [[created.topicid, 'Made by the Inspector']]);
    const tree = await t.client.request<any>('GET', `/study-sets/${created.topicid}/tree`);
    assert.deepEqual(
      tree.nodes.map((n: any) => [n.noteid, n.parent, n.title]),
      [
        [created.rootNoteId, null, 'Made by the Inspector'],
        [card.noteid, created.rootNoteId, 'Inspector card'],
      ],
    );

    const listed = JSON.parse(textOf(await callTool(t, 'study_call', ['method=GET', 'path=/library/study-sets', 'query={"query":"inspector"}'])));
    assert.deepEqual(listed.studySets.map((s: any) => s.topicid), [created.topicid]);
  });

  it('an image answer comes back as MCP image content (base64 PNG, the same bytes as over HTTP)', async () => {
    // Until card renders exist: the composite PNG of a page part with red ink over the page region.
    const { bookmd5 } = await upload(t, 'CAD.pdf');
    await t.bridge.services.documents.whenReady(bookmd5);
    await t.bridge.services.store.write((tx) =>
      tx.run(`INSERT INTO page_parts(content_id, bookmd5, page, kind, rect, image, created_at) VALUES ('INK1', ?, 1, 'ink', '{"x":0.1,"y":0.1,"width":0.5,"height":0.25}', ?, 'now')`, [bookmd5, redInk()]),
    );
    const path = `/documents/${bookmd5}/pages/1/content/INK1`;
    const r = await callTool(t, 'study_call', ['method=GET', `path=${path}`, 'query={"maxEdge":256}']);
    assert.notEqual(r.isError, true);
    assert.equal(r.content.length, 1);
    assert.equal(r.content[0].type, 'image');
    assert.equal(r.content[0].mimeType, 'image/png');
    const png = Buffer.from(r.content[0].data!, 'base64');
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.equal(png.readUInt32BE(16), 256, 'IHDR width: the longer edge is maxEdge');
    const height = png.readUInt32BE(20);
    assert.ok(height > 64 && height < 256, `height ${height}: the part is wider than tall`);
    const direct = await t.client.raw('GET', path, { query: { maxEdge: 256 } });
    assert.equal(direct.status, 200);
    assert.ok(png.equals(direct.bytes), 'the tool returns the route bytes unchanged');

    // The ink is in the picture: the centre pixel is red.
    const { loadImage } = await import('@napi-rs/canvas');
    const img = await loadImage(png);
    const canvas = createCanvas(img.width, img.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const [red, green, blue] = ctx.getImageData(128, Math.floor(height / 2), 1, 1).data;
    assert.deepEqual([red > 200, green < 60, blue < 60], [true, true, true], `centre pixel ${red},${green},${blue}`);
  });

  it('a refused image request is a tool error carrying the bridge error body', async () => {
    const r = await callTool(t, 'study_call', ['method=GET', 'path=/documents/0123456789abcdef0123456789abcdef/pages/1/content/NOPE']);
    assert.equal(r.isError, true);
    assert.match(JSON.parse(textOf(r)).error.code, /NOT_FOUND/);
  });
});
