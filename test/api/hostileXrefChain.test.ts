import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { filesMatching, rssOf, sampleRss, streamUpload } from '../helpers/hostileInput';
import { brokenChainPdf } from '../helpers/brokenChainPdf';

const MB = 1024 * 1024;

/**
 * A PDF whose cross-reference table is where `startxref` says, but whose
 * page is not where the table says (child bridge, RSS from /proc): pdf.js
 * would rebuild the table by scanning the whole file (200 MB: +350 MB, 30 s).
 * Over the rebuild limit it is refused as a missing table is; a small one is
 * still rebuilt and read, as a damaged download should be.
 */
describe('hostile uploads: a valid cross-reference table whose chain breaks later (child bridge)', function () {
  this.timeout(300_000);
  let dataDir: string;
  let bridge: ChildBridge;
  let client: BridgeClient;
  let token: string;

  before(async () => {
    dataDir = tempDir('sb-hostile-xref-');
    bridge = await spawnBridge(['--data', dataDir, '--port', '0', '--max-upload-mb', '300']);
    token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    client = new BridgeClient({ baseUrl: bridge.baseUrl, token });
  });
  after(async () => {
    bridge?.child.kill('SIGTERM');
    await bridge?.exited;
  });

  it('1 MB: the table is rebuilt and the page read (200)', async () => {
    const r = await streamUpload(bridge.baseUrl, token, { filename: 'small-broken.pdf', confirm: '1' }, () =>
      brokenChainPdf(MB),
    );
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.pageCount, 1);
  });

  it('200 MB: 422 PDF_TOO_COMPLEX naming the broken table, nothing stored, bridge alive, RSS within +300 MB and back', async () => {
    const pid = bridge.child.pid!;
    const before = rssOf(pid);
    const rss = sampleRss(pid);
    const t0 = Date.now();
    const r = await streamUpload(bridge.baseUrl, token, { filename: 'broken-chain.pdf', confirm: '1' }, () =>
      brokenChainPdf(200 * MB),
    );
    const peak = rss.stop();
    assert.equal(r.status, 422, JSON.stringify(r.json));
    assert.equal(r.json.error.code, 'PDF_TOO_COMPLEX');
    assert.match(r.json.error.message, /cross-reference table is broken \(an object is not where the table says\)/);
    assert.match(r.json.error.message, /qpdf/);
    assert.equal((await client.raw('GET', '/status')).status, 200, 'the bridge still answers');
    assert.deepEqual(filesMatching(join(dataDir, 'library'), /broken-chain|\.part$/), []);
    let after = rssOf(pid);
    for (let i = 0; i < 240 && after >= before + 100 * MB; i++) {
      await new Promise((res) => setTimeout(res, 250));
      after = rssOf(pid);
    }
    console.log(
      `      broken chain, 200 MB: ${r.status} in ${Date.now() - t0} ms; RSS before ${(before / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB, after ${(after / MB).toFixed(0)} MB`,
    );
    assert.ok(
      peak < before + 300 * MB,
      `peak ${(peak / MB).toFixed(0)} MB within 300 MB of ${(before / MB).toFixed(0)}`,
    );
    assert.ok(
      after < before + 100 * MB,
      `after ${(after / MB).toFixed(0)} MB within 100 MB of ${(before / MB).toFixed(0)}`,
    );
  });
});
