/**
 * Other local users (issue 15, case 5): the data dir is made 0700 at start,
 * what an older build left readable is tightened, and everything the bridge
 * writes afterwards (journal, database, cache, snapshots, library PDFs,
 * bundles in an export folder outside the data dir) is 0600 in 0700 folders,
 * also with a umask of 0.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';
import { corpusFile } from '../unit/pdfCorpus';

/** Every file not 0600 and every folder not 0700 under `root`, as "mode path" lines. */
function offenders(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = lstatSync(p);
      const mode = st.mode & 0o777;
      if (st.isDirectory()) {
        if (mode !== 0o700) out.push(`${mode.toString(8)} ${p}/`);
        walk(p);
      } else if (mode !== 0o600) out.push(`${mode.toString(8)} ${p}`);
    }
  };
  walk(root);
  return out;
}

/** What an older build left: every folder 0755, every file 0644, the data dir itself 0755. */
function loosen(root: string): void {
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    if (lstatSync(p).isDirectory()) {
      chmodSync(p, 0o755);
      loosen(p);
    } else chmodSync(p, 0o644);
  }
  chmodSync(root, 0o755);
}

const modeOf = (p: string) => statSync(p).mode & 0o777;

describe('the data dir is private to its owner (0700, files 0600)', function () {
  this.timeout(120_000);
  let oldUmask: number;
  let t: TestBridge | undefined;
  before(() => (oldUmask = process.umask(0)));
  after(async () => {
    await t?.stop();
    process.umask(oldUmask);
  });

  it('an older 0755 data dir with 0644 files is tightened at start; uploads, snapshots, bundles and checkpoints write 0600 files in 0700 folders', async () => {
    const dataDir = tempDir('sb-private-');
    const exportFolder = tempDir('sb-export-');
    // A first run, then everything loosened as an older build (or a 0755 dir made by hand) would leave it.
    t = await startBridge({ dataDir, exportFolder });
    const set = await t.client.createStudySet('Private notes');
    await t.client.request('POST', `/study-sets/${set.topicid}/notes`, {
      body: { text: 'a card title', confirm: true },
    });
    await t.stop();
    mkdirSync(join(dataDir, 'cache', 'old-book'), { recursive: true });
    writeFileSync(join(dataDir, 'cache', 'old-book', 'pages.pc'), 'old cache');
    mkdirSync(join(exportFolder, 'bundles', 'old-bundle'), { recursive: true });
    writeFileSync(join(exportFolder, 'bundles', 'old-bundle', 'TASK.md'), 'old bundle');
    loosen(dataDir);
    loosen(join(exportFolder, 'bundles'));
    assert.ok(offenders(dataDir).length >= 5, 'the setup left open files');

    t = await startBridge({ dataDir, exportFolder });
    assert.equal(modeOf(dataDir), 0o700, 'the data dir is 0700 after start');
    assert.deepEqual(offenders(dataDir), [], 'after start');
    assert.deepEqual(
      offenders(join(exportFolder, 'bundles')),
      [],
      'the bundles folder outside the data dir, after start',
    );
    const status = await t.client.status();
    assert.equal(
      (status as { warnings?: string[] }).warnings,
      undefined,
      'no warning when the dir could be made private',
    );

    // Writes of every kind, then a checkpoint.
    const bytes = readFileSync(corpusFile('CAD.pdf'));
    const up = await t.client.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
      bytes,
      query: { filename: 'CAD.pdf', folder: 'course/week1', confirm: '1' },
    });
    await t.bridge.services.extraction.whenReady(up.bookmd5);
    await t.client.addDocumentToStudySet(set.topicid, up.bookmd5);
    await t.client.request('POST', `/study-sets/${set.topicid}/snapshots`, {
      body: { description: 'before the bundle' },
    });
    const prep = await t.client.request<{ state: string; bundlePath: string }>('POST', '/bundles/prepare', {
      body: {
        topicid: set.topicid,
        bookmd5: up.bookmd5,
        segments: [{ startPage: 1, endPage: 2 }],
        preset: 'book-breakdown',
        anchorMode: 'page_text',
      },
    });
    assert.equal(prep.state, 'prepared');
    assert.ok(prep.bundlePath.startsWith(exportFolder), prep.bundlePath);
    for (let i = 0; i < 20; i++)
      await t.client.request('POST', `/study-sets/${set.topicid}/notes`, {
        body: { text: `card ${i}`, confirm: true },
      });
    await t.bridge.services.store.checkpoint();

    for (const sub of [
      'library.journal',
      'library.db',
      'token',
      'secret',
      'bridge.json',
      'library.lock',
      'cache',
      'snapshots',
      'library/course/week1/CAD.pdf',
    ]) {
      assert.ok(statSync(join(dataDir, sub)), `${sub} exists`);
    }
    assert.deepEqual(
      offenders(dataDir),
      [],
      'after an upload, a snapshot, a bundle prepare and a checkpoint (umask 0)',
    );
    assert.deepEqual(offenders(join(exportFolder, 'bundles')), [], 'bundles in the export folder');
    await t.stop();
    t = undefined;
    assert.deepEqual(offenders(dataDir), [], 'after the checkpoint at close');
  });

  it('a data dir that cannot be made private (owned by another user, 0777): a warning on stderr and in /status, files still 0600', async function () {
    if (process.getuid?.() !== 0) this.skip(); // needs root to run the bridge as another user
    const dataDir = tempDir('sb-shared-');
    chmodSync(dataDir, 0o777); // root's, writable by all: the bridge runs as nobody
    const child = await spawnBridge(['--data', dataDir, '--port', '0'], { HOME: dataDir }, { uid: 65534, gid: 65534 });
    try {
      assert.match(
        child.stderr(),
        /warning: The data dir .* belongs to user 0, not to this user \(\d+\), so it cannot be made private \(it stays 0777\)/,
      );
      const client = new BridgeClient({
        baseUrl: child.baseUrl,
        token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
      });
      const status = (await client.status()) as { authorized: boolean; warnings?: string[] };
      assert.equal(status.authorized, true);
      assert.equal(status.warnings?.length, 1);
      assert.match(status.warnings[0], /cannot be made private/);
      const anonymous = (await new BridgeClient({ baseUrl: child.baseUrl }).status()) as { warnings?: string[] };
      assert.equal(anonymous.warnings, undefined, 'paths and user ids only for the owner');
      const set = await client.createStudySet('Shared machine');
      await client.request('POST', `/study-sets/${set.topicid}/notes`, {
        body: { text: 'still private', confirm: true },
      });
      assert.equal(modeOf(dataDir), 0o777);
      assert.deepEqual(offenders(dataDir), [], 'every file the bridge wrote is 0600 even so');
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });
});
