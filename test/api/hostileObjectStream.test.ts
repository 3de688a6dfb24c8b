/**
 * A PDF whose object stream (shared with its catalog and pages) holds a
 * 20 MB string: pdf.js would parse the whole stream, a character at a time,
 * to read the page count (~1 GB before the worker's budget ended it). The
 * worker refuses it before pdf.js opens it: 422 PDF_TOO_COMPLEX at upload,
 * nothing stored, the bridge alive, RSS printed (child bridge, /proc).
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { chunksOf, filesMatching, rssOf, sampleRss, streamUpload } from '../helpers/hostileInput';
import { hugeContentsPdf } from '../helpers/hostileAnnotations';
import { corpusFile } from '../unit/pdfCorpus';

const MB = 1024 * 1024;

describe('hostile object streams: a string of megabytes is refused before pdf.js parses it (child bridge)', function () {
  this.timeout(300_000);
  const dataDir = tempDir('sb-hostile-objstm-');
  let bridge: ChildBridge;
  let client: BridgeClient;
  let token: string;

  before(async () => {
    bridge = await spawnBridge(['--data', dataDir, '--port', '0']);
    token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    client = new BridgeClient({ baseUrl: bridge.baseUrl, token });
  });
  after(async () => {
    bridge?.child.kill('SIGTERM');
    await bridge?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const upload = (bytes: Uint8Array, filename: string) =>
    streamUpload(bridge.baseUrl, token, { filename, confirm: '1' }, () => chunksOf(bytes));

  it('a corpus book packed in object streams still uploads (and warms a worker up)', async () => {
    const r = await upload(readFileSync(corpusFile('CAD.pdf')), 'CAD.pdf');
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.pageCount, 7);
  });

  it('a 20 MB /Contents in the object stream that holds the catalog → 422 PDF_TOO_COMPLEX naming the string, nothing stored, the bridge answers', async () => {
    const bytes = await hugeContentsPdf(20 * MB, true);
    const pid = bridge.child.pid!;
    const before = rssOf(pid);
    const rss = sampleRss(pid);
    const r = await upload(bytes, 'objstm-string.pdf');
    const peak = rss.stop();
    console.log(
      `      20 MB string in an object stream: ${r.status}, RSS before ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB`,
    );
    assert.equal(r.status, 422, JSON.stringify(r.json));
    assert.equal(r.json.error.code, 'PDF_TOO_COMPLEX');
    assert.match(r.json.error.message, /an object stream holds a string of 20,971,520 bytes/);
    assert.deepEqual(filesMatching(join(dataDir, 'library'), /objstm-string|\.part$/), []);
    const docs = await client.call('GET /library/folders');
    assert.equal(JSON.stringify(docs).includes('objstm-string'), false, 'no document was listed');
    assert.equal((await client.raw('GET', '/status')).status, 200, 'the bridge still answers');
    // A fresh worker reads the next book.
    const next = await upload(readFileSync(corpusFile('4ti2_manual.pdf')), '4ti2_manual.pdf');
    assert.equal(next.status, 200, JSON.stringify(next.json));
  });
});
