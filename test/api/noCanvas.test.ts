/**
 * Where the native canvas (@napi-rs/canvas) does not load, PDF text still
 * works and only drawing answers 503 RENDERER_UNAVAILABLE. The real bridge
 * (dist/cli.js) runs with STUDY_BRIDGE_NO_CANVAS=1, under which no require
 * of the module resolves (pdf.js's own included), in the process and in its
 * PDF worker threads.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import type { RouteAnswer } from '../../src/client/routeCalls';
import { probeCanvas } from '../../src/server/ground/pdf/nativeCanvas';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { corpusFile } from '../unit/pdfCorpus';

const PLATFORM = `${process.platform}-${process.arch}`;
const isRendererWarning = (w: unknown) => typeof w === 'string' && w.includes('@napi-rs/canvas');

async function waitReady(client: BridgeClient, bookmd5: string): Promise<RouteAnswer<'GET /documents/{id}/outline'>> {
  for (let i = 0; i < 1200; i++) {
    const o = await client.call('GET /documents/{id}/outline', { params: { id: bookmd5 } });
    if (o.extraction.state === 'ready' || o.extraction.state === 'failed') return o;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${bookmd5} was not extracted`);
}

async function proseLine(client: BridgeClient, bookmd5: string, page: number): Promise<string> {
  const p = (await client.call('GET /documents/{id}/pages', { params: { id: bookmd5 }, query: { start: page } }))
    .pages[0];
  const line = p.text.split('\n').find((l) => l.length > 40 && /^[A-Za-z ,.]+$/.test(l.trim()));
  assert.ok(line, `page ${page} has a line of prose`);
  return line.trim();
}

describe('no native canvas: PDF text works, drawing answers 503 RENDERER_UNAVAILABLE', function () {
  this.timeout(300_000);
  const dataDir = tempDir('sb-nocanvas-');
  let child: ChildBridge;
  let client: BridgeClient;
  let manual: string;
  let setId: string;
  let excerpt: { noteid: string; contentId: string };

  const upload = async (bytes: Uint8Array, filename: string) => {
    const r = await client.raw('POST', '/library/documents/upload', { bytes, query: { filename, confirm: '1' } });
    assert.equal(r.status, 200, r.text());
    return r.json<{ bookmd5: string }>().bookmd5;
  };
  const refusedNoRenderer = (res: { status: number; json<T>(): T; text(): string }) => {
    assert.equal(res.status, 503, res.text());
    const e = res.json<any>().error;
    assert.equal(e.code, 'RENDERER_UNAVAILABLE');
    assert.equal(e.details.module, '@napi-rs/canvas');
    assert.equal(e.details.platform, PLATFORM);
    assert.match(e.details.loadError, /Cannot find module/);
    assert.ok(e.message.includes(PLATFORM) && e.message.includes('@napi-rs/canvas'), e.message);
  };

  before(async () => {
    child = await spawnBridge(['--data', dataDir, '--port', '0'], { STUDY_BRIDGE_NO_CANVAS: '1' });
    client = new BridgeClient({ baseUrl: child.baseUrl, token: readFileSync(join(dataDir, 'token'), 'utf8').trim() });
  });
  after(async () => {
    child.child.kill('SIGTERM');
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('/status warns, naming the platform, the module and the load error; without the token it does not', async () => {
    const s = await client.call('GET /status');
    const w = (s.warnings as unknown[]).filter(isRendererWarning);
    assert.equal(w.length, 1, JSON.stringify(s.warnings));
    assert.ok(String(w[0]).includes(PLATFORM), String(w[0]));
    assert.match(String(w[0]), /Cannot find module '@napi-rs\/canvas' \(STUDY_BRIDGE_NO_CANVAS=1\)/);
    assert.match(child.stderr(), /warning: Pictures cannot be drawn/);
    const anon = await new BridgeClient({ baseUrl: child.baseUrl }).call('GET /status');
    assert.equal(anon.warnings, undefined);
  });

  it('an upload succeeds and is extracted: pages, outline, TOC candidates', async () => {
    manual = await upload(readFileSync(corpusFile('4ti2_manual.pdf')), '4ti2_manual.pdf');
    const o = await waitReady(client, manual);
    assert.equal(o.extraction.state, 'ready', JSON.stringify(o.extraction));
    assert.equal(o.pageCount, 59);
    assert.ok(o.segments.length >= 5, 'the bookmarks are read');
    const page = (await client.call('GET /documents/{id}/pages', { params: { id: manual }, query: { start: 6 } }))
      .pages[0];
    assert.ok(page.text.length > 500, 'page 6 has its text');
    assert.equal(page.source, 'text_layer');
    const toc = await client.call('GET /documents/{id}/toc-candidates', { params: { id: manual } });
    assert.ok(toc.items.length > 0, 'heading candidates');
  });

  it('a scanned book uploads and is ready; its pages, which need OCR of a picture, read as unreadable', async () => {
    const scan = await upload(readFileSync(corpusFile('scanned-4ti2-p5-8.pdf')), 'scanned.pdf');
    const o = await waitReady(client, scan);
    assert.equal(o.extraction.state, 'ready', JSON.stringify(o.extraction));
    const pages = (
      await client.call('GET /documents/{id}/pages', { params: { id: scan }, query: { start: 1, end: 4 } })
    ).pages;
    assert.deepEqual(
      pages.map((p) => [p.page, p.source]),
      [1, 2, 3, 4].map((n) => [n, 'unreadable']),
    );
  });

  it('search finds a word of the book; locate finds a line on its page', async () => {
    const r = await client.call('GET /search', { query: { q: 'Graver basis', scope: 'documents' } });
    assert.deepEqual(
      r.documents.map((d) => d.bookmd5),
      [manual],
    );
    const line = await proseLine(client, manual, 6);
    const hit = await client.call('POST /documents/{id}/locate', {
      params: { id: manual },
      body: { page: 6, text: line },
    });
    assert.equal(hit.found, true);
    assert.ok(hit.rect && hit.rect.width > 0 && hit.rect.height > 0);
  });

  it('a bundle prepares from the pages', async () => {
    setId = (await client.call('POST /library/study-sets', { body: { title: 'No canvas', confirm: true } })).topicid;
    const prep = await client.raw('POST', '/bundles/prepare', {
      body: { topicid: setId, bookmd5: manual, segments: [{ startPage: 5, endPage: 8 }], async: true },
    });
    assert.equal(prep.status, 202, prep.text());
    const id = prep.json<any>().bundleId;
    for (let i = 0; i < 600; i++) {
      const b = (await client.call('GET /bundles')).bundles.find((x) => x.bundleId === id);
      assert.ok(b, 'the bundle is listed');
      if (b.state !== 'preparing') {
        assert.equal(b.state, 'prepared', JSON.stringify(b));
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail('the bundle did not finish preparing');
  });

  it('an excerpt card is made; its picture and the whole card answer 503 RENDERER_UNAVAILABLE', async () => {
    const text = await proseLine(client, manual, 10);
    const made = await client.call('POST /study-sets/{id}/notes', {
      params: { id: setId },
      body: { title: 'An excerpt', excerpt: { bookmd5: manual, page: 10, text }, confirm: true },
    });
    const noteid = made.noteid;
    assert.ok(noteid, 'one card made');
    const card = (await client.call('POST /notes/batch-get', { body: { noteIds: [noteid] } })).notes[0];
    const part = card.parts.find((p) => p.kind === 'excerpt_image');
    assert.ok(part?.contentId, JSON.stringify(card.parts));
    excerpt = { noteid, contentId: part.contentId };
    refusedNoRenderer(await client.raw('GET', `/notes/${noteid}/content/${part.contentId}`));
    refusedNoRenderer(await client.raw('GET', `/notes/${noteid}/render`));
    // Refused again, not cached as something else.
    refusedNoRenderer(await client.raw('GET', `/notes/${noteid}/content/${part.contentId}`));
  });

  it('annotations out and back in: the highlighted copy uploads and its highlights import as cards', async () => {
    const out = await client.raw('GET', `/study-sets/${setId}/annotated-pdf`, { query: { bookmd5: manual } });
    assert.equal(out.status, 200, out.text());
    const copy = await upload(out.bytes, '4ti2-highlighted.pdf');
    assert.equal((await waitReady(client, copy)).extraction.state, 'ready');
    const other = (await client.call('POST /library/study-sets', { body: { title: 'Back in', confirm: true } }))
      .topicid;
    const res = await client.raw('POST', `/documents/${copy}/annotations/import`, {
      body: { topicid: other, confirm: true },
    });
    assert.equal(res.status, 200, res.text());
    assert.equal(res.json<any>().created.length, 1, 'the one excerpt card comes back');
    assert.ok(excerpt.noteid);
  });
});

describe('with the native canvas: no renderer warning, pictures are drawn', function () {
  this.timeout(120_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge();
  });
  after(async () => t.stop());

  it('/status has no renderer warning once the canvas is known to load; a page picture renders', async () => {
    assert.equal(await probeCanvas(), undefined, 'the canvas loads on this machine');
    const book = (
      await t.client.call('POST /library/documents/upload', {
        bytes: readFileSync(corpusFile('CAD.pdf')),
        query: { filename: 'CAD.pdf', confirm: '1' },
      })
    ).bookmd5;
    await t.bridge.services.extraction.whenReady(book);
    const set = await t.client.createStudySet('Canvas');
    const text = await proseLine(t.client, book, 2);
    const made = await t.client.call('POST /study-sets/{id}/notes', {
      params: { id: set.topicid },
      body: { title: 'Drawn', excerpt: { bookmd5: book, page: 2, text }, confirm: true },
    });
    assert.ok(made.noteid, 'one card made');
    const res = await t.client.raw('GET', `/notes/${made.noteid}/render`);
    assert.equal(res.status, 200, res.text());
    assert.equal(res.headers.get('content-type'), 'image/png');
    const s = await t.client.call('GET /status');
    assert.deepEqual(((s.warnings ?? []) as unknown[]).filter(isRendererWarning), []);
  });
});
