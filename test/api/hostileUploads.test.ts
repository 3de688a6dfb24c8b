import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { once } from 'node:events';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { filesMatching, flateBombPdf, junkPdfBody, rssOf, sampleRss, streamUpload } from '../helpers/hostileInput';
import { corpusFile } from '../unit/pdfCorpus';
import { distinctCopy } from '../helpers/distinctPdf';

const MB = 1024 * 1024;

/** Polls until `check` holds or `ms` pass; returns the last value. */
async function until<T>(ms: number, get: () => Promise<T> | T, check: (v: T) => boolean): Promise<T> {
  const end = Date.now() + ms;
  let v = await get();
  while (!check(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 250));
    v = await get();
  }
  return v;
}

function* chunksOf(buf: Buffer, size = 256 * 1024): Generator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

describe('hostile uploads: bounded memory, size and page limits (child bridge, RSS from /proc)', function () {
  this.timeout(300_000);
  let dataDir: string;
  let bridge: ChildBridge;
  let client: BridgeClient;
  let token: string;

  before(async () => {
    dataDir = tempDir('sb-hostile-');
    bridge = await spawnBridge(['--data', dataDir, '--port', '0', '--max-upload-mb', '300', '--max-pages', '40']);
    token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    client = new BridgeClient({ baseUrl: bridge.baseUrl, token });
  });

  after(async () => {
    bridge?.child.kill('SIGTERM');
    await bridge?.exited;
  });

  const alive = async () => assert.equal((await client.raw('GET', '/status')).status, 200, 'the bridge still answers');

  it('a valid corpus book still uploads and is read (warms the workers up for the baselines below)', async () => {
    const r = await streamUpload(bridge.baseUrl, token, { filename: 'CAD.pdf', confirm: '1' }, () =>
      chunksOf(readFileSync(corpusFile('CAD.pdf'))),
    );
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.pageCount, 7);
    const doc = await until(
      60_000,
      () => client.call('GET /documents/{id}/outline', { params: { id: r.json.bookmd5 } }),
      (o) => o.extraction.state === 'ready',
    );
    assert.equal(doc.extraction.state, 'ready');
  });

  it('a 1 MB zip-bomb PDF (one content stream of 1 GB of spaces): document failed with PDF_TOO_COMPLEX, bridge alive, RSS bounded and back', async () => {
    const bomb = await flateBombPdf(1024 * MB);
    assert.ok(bomb.length < 2 * MB, `the bomb is small (${bomb.length} bytes)`);
    const before = rssOf(bridge.child.pid!);
    const rss = sampleRss(bridge.child.pid!);
    const r = await streamUpload(bridge.baseUrl, token, { filename: 'bomb.pdf', confirm: '1' }, () => chunksOf(bomb));
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const id = r.json.bookmd5;
    const o = await until(
      120_000,
      () => client.call('GET /documents/{id}/outline', { params: { id } }),
      (x) => x.extraction.state === 'failed' || x.extraction.state === 'ready',
    );
    const peak = rss.stop();
    assert.equal(o.extraction.state, 'failed', JSON.stringify(o.extraction));
    assert.equal(o.extraction.errorCode, 'PDF_TOO_COMPLEX');
    assert.match(o.extraction.error ?? '', /^PDF_TOO_COMPLEX: /);
    // The reading routes say why too.
    const pages = await client.raw('GET', `/documents/${id}/pages`, { query: { start: 1 } });
    assert.equal(pages.status, 422);
    assert.match(pages.json<any>().error.message, /PDF_TOO_COMPLEX/);
    await alive();
    const after = await until(
      60_000,
      () => rssOf(bridge.child.pid!),
      (v) => v < before + 100 * MB,
    );
    console.log(
      `      bomb: RSS before ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB, after ${(after / MB).toFixed(0)} MB`,
    );
    assert.ok(
      peak < before + 1024 * MB,
      `peak RSS ${(peak / MB).toFixed(0)} MB stays within 1 GB of ${(before / MB).toFixed(0)} MB`,
    );
    assert.ok(
      after < before + 100 * MB,
      `RSS back within 100 MB (${(after / MB).toFixed(0)} MB vs ${(before / MB).toFixed(0)} MB)`,
    );
    // A fresh worker serves the next book.
    const next = await streamUpload(bridge.baseUrl, token, { filename: 'CAD copy.pdf', confirm: '1' }, () =>
      chunksOf(distinctCopy(readFileSync(corpusFile('CAD.pdf')), 1)),
    );
    assert.equal(next.status, 200, JSON.stringify(next.json));
    assert.equal(next.json.created, true);
  });

  it('a 200 MB body of %PDF-1.7 + junk, streamed: 4xx, nothing stored, bridge alive, RSS bounded and back', async () => {
    const before = rssOf(bridge.child.pid!);
    const rss = sampleRss(bridge.child.pid!);
    const r = await streamUpload(bridge.baseUrl, token, { filename: 'junk.pdf', confirm: '1' }, () =>
      junkPdfBody(200 * MB),
    );
    const peak = rss.stop();
    assert.ok(r.status >= 400 && r.status < 500, `answered ${r.status} ${JSON.stringify(r.json)}`);
    assert.ok(['CORRUPT_PDF', 'PDF_TOO_COMPLEX'].includes(r.json.error.code), r.json.error.code);
    await alive();
    assert.deepEqual(filesMatching(join(dataDir, 'library'), /junk|\.part$/), []);
    const after = await until(
      60_000,
      () => rssOf(bridge.child.pid!),
      (v) => v < before + 100 * MB,
    );
    console.log(
      `      junk: RSS before ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB, after ${(after / MB).toFixed(0)} MB`,
    );
    // Refused before pdf.js rebuilds its missing table (that scan held +400 MB more): what is left is reading the file.
    assert.ok(
      peak < before + 300 * MB,
      `peak RSS ${(peak / MB).toFixed(0)} MB stays within 300 MB of ${(before / MB).toFixed(0)} MB`,
    );
    assert.match(r.json.error.message, /cross-reference table is missing or broken/);
    assert.ok(
      after < before + 100 * MB,
      `RSS back within 100 MB (${(after / MB).toFixed(0)} MB vs ${(before / MB).toFixed(0)} MB)`,
    );
  });

  it('over the size limit: 413 PAYLOAD_TOO_LARGE with the limit, streamed or declared; no .part left', async () => {
    const streamed = await streamUpload(bridge.baseUrl, token, { filename: 'big.pdf', confirm: '1' }, () =>
      junkPdfBody(310 * MB),
    );
    assert.equal(streamed.status, 413, JSON.stringify(streamed.json));
    assert.equal(streamed.json.error.code, 'PAYLOAD_TOO_LARGE');
    assert.deepEqual([streamed.json.error.details.limitBytes, streamed.json.error.details.limitMb], [300 * MB, 300]);
    const declared = await streamUpload(
      bridge.baseUrl,
      token,
      { filename: 'big.pdf', confirm: '1' },
      () => junkPdfBody(1 * MB),
      { 'Content-Length': String(301 * MB) },
    );
    assert.equal(declared.status, 413);
    assert.equal(declared.json.error.details.limitBytes, 300 * MB);
    await alive();
    assert.deepEqual(filesMatching(join(dataDir, 'library'), /\.part$|big/), []);
  });

  it('a client that keeps sending after the 413 (Connection: close) reads the answer and may finish writing: no reset (lingering close)', async () => {
    const { port } = new URL(bridge.baseUrl);
    // Half-open like a client that has not read the answer yet: the server's FIN does not end our side.
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    await once(socket, 'connect');
    const received: Buffer[] = [];
    socket.on('data', (c) => received.push(c));
    const errors: string[] = [];
    socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
    socket.write(
      `POST /bridge/v1/library/documents/upload?filename=late.pdf&confirm=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/pdf\r\nContent-Length: ${301 * MB}\r\nConnection: close\r\n\r\n`,
    );
    // The answer comes before any body byte is sent.
    await until(
      10_000,
      () => Buffer.concat(received).toString('latin1'),
      (t) => t.includes('\r\n\r\n'),
    );
    assert.match(Buffer.concat(received).toString('latin1'), /^HTTP\/1\.1 413 /);
    // The client only now notices; it goes on sending 8 MB, then closes. Without the linger, these writes meet a closed socket.
    const chunk = Buffer.alloc(MB, 0x20);
    for (let i = 0; i < 8 && !errors.length && !socket.destroyed; i++) {
      if (!socket.write(chunk)) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
    }
    await new Promise((r) => setTimeout(r, 300));
    socket.end();
    if (!socket.destroyed) await once(socket, 'close');
    assert.deepEqual(errors, [], 'no EPIPE or ECONNRESET while the client finished its writes');
    assert.match(Buffer.concat(received).toString('utf8'), /"code":"PAYLOAD_TOO_LARGE"/);
    await alive();
  });

  it('more pages than --max-pages: 422 PDF_TOO_MANY_PAGES before extraction, nothing stored', async () => {
    const before = readdirSync(join(dataDir, 'library')).sort();
    const r = await streamUpload(bridge.baseUrl, token, { filename: '4ti2_manual.pdf', confirm: '1' }, () =>
      chunksOf(readFileSync(corpusFile('4ti2_manual.pdf'))),
    );
    assert.equal(r.status, 422, JSON.stringify(r.json));
    assert.equal(r.json.error.code, 'PDF_TOO_MANY_PAGES');
    assert.equal(r.json.error.details.maxPages, 40);
    assert.match(r.json.error.message, /59 pages/);
    assert.deepEqual(readdirSync(join(dataDir, 'library')).sort(), before);
    const caps = await client.call('GET /capabilities');
    assert.deepEqual([caps.limits.maxPages, caps.limits.uploadBytes], [40, 300 * MB]);
  });
});
