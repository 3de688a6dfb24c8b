import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient, type RawResponse } from '../../src/client/bridgeClient';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { filesBelow, mountSmallDisk, type SmallDisk } from '../helpers/smallDisk';

/**
 * A full disk is a normal condition: over HTTP against a child bridge whose
 * data dir is on a real 16 MB tmpfs, filled to the last byte by a filler file.
 */
const CAD = readFileSync('/work/shared/corpus/CAD.pdf');
const OTHER_PDF = Buffer.concat([CAD, Buffer.from('\n%full-disk copy\n', 'latin1')]);
const RESULT_MD = '# Full disk heading\nA card from the bundle.\n## Second heading\nAnother card.\n';

interface Library {
  bridge: ChildBridge;
  client: BridgeClient;
  dataDir: string;
  topicid: string;
  bookmd5: string;
  bundleId: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function assert507(r: RawResponse, what: string): void {
  assert.equal(r.status, 507, `${what}: ${r.text()}`);
  const e = r.json<{ error: { code: string; retryable: boolean; details: { freeBytes: number } } }>().error;
  assert.equal(e.code, 'INSUFFICIENT_STORAGE', what);
  assert.equal(e.retryable, true, what);
  assert.equal(typeof e.details.freeBytes, 'number', `${what}: details.freeBytes`);
  assert.ok(
    e.details.freeBytes < 1024 * 1024,
    `${what}: freeBytes ${e.details.freeBytes} is what the full disk has left`,
  );
}

/** What the read routes say about the library: must not move when a write answers 507. */
async function readState(c: BridgeClient, topicid: string) {
  const get = async (path: string) => {
    const r = await c.raw('GET', path);
    assert.equal(r.status, 200, `${path}: ${r.text()}`);
    const { bridgeApiVersion: _v, ...body } = r.json<Record<string, unknown>>();
    return body;
  };
  return {
    sets: await get('/library/study-sets'),
    tree: await get(`/study-sets/${topicid}/tree`),
    snapshots: await get(`/study-sets/${topicid}/snapshots`),
    documents: await get(`/study-sets/${topicid}/documents`),
    bundles: await get('/bundles'),
  };
}

/** Files that matter for "nothing half-written": all but the store's own (its checkpoints run on their own clock). */
const userFiles = (dataDir: string) =>
  filesBelow(dataDir).filter((f) => !/^library\.(db|journal|lock)/.test(f) && f !== 'bridge.json');

/** A library with a set, a card, an extracted PDF and a prepared bundle, on the small disk. */
async function makeLibrary(disk: SmallDisk): Promise<Library> {
  const dataDir = join(disk.dir, 'data');
  const bridge = await spawnBridge(['--data', dataDir, '--port', '0']);
  const client = new BridgeClient({
    baseUrl: bridge.baseUrl,
    token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
  });
  const { topicid } = await client.request<{ topicid: string }>('POST', '/library/study-sets', {
    body: { title: 'Full disk', confirm: true },
  });
  await client.request('POST', `/study-sets/${topicid}/notes`, {
    body: { title: 'Before the disk filled', confirm: true },
  });
  const { bookmd5 } = await client.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
    query: { filename: 'cad.pdf', topicid, confirm: '1' },
    bytes: CAD,
  });
  for (let i = 0; ; i++) {
    const docs = await client.request<{ documents: Array<{ extractionState: string }> }>(
      'GET',
      `/study-sets/${topicid}/documents`,
    );
    if (docs.documents[0]?.extractionState === 'ready') break;
    assert.ok(i < 100, 'the PDF was extracted');
    await sleep(200);
  }
  const prep = await client.request<{ bundleId: string; state: string }>('POST', '/bundles/prepare', {
    body: {
      topicid,
      bookmd5,
      segments: [{ startPage: 1, endPage: 2 }],
      preset: 'book-breakdown',
      anchorMode: 'page_text',
    },
  });
  assert.equal(prep.state, 'prepared');
  return { bridge, client, dataDir, topicid, bookmd5, bundleId: prep.bundleId };
}

describe('full disk (a real small tmpfs): 507, nothing changed, nothing left; writable again without a restart', function () {
  this.timeout(180_000);
  let disk: SmallDisk | undefined;
  const bridges: ChildBridge[] = [];

  beforeEach(function () {
    const m = mountSmallDisk(16);
    if ('refused' in m) {
      // Only where the machine refuses mount (not root, a locked-down container): the tmpfs is the point of these tests.
      console.warn(`      skipped: cannot mount a tmpfs here (${m.refused})`);
      this.skip();
    }
    disk = m;
  });

  afterEach(async () => {
    for (const b of bridges.splice(0)) {
      b.child.kill('SIGKILL');
      await b.exited;
    }
    disk?.unmount();
    disk = undefined;
  });

  it('snapshot, upload, bundle submit and export answer 507 with freeBytes, change nothing and leave no temp file; after freeing space the same writes succeed', async () => {
    const lib = await makeLibrary(disk!);
    bridges.push(lib.bridge);
    const c = lib.client;
    const before = await readState(c, lib.topicid);
    const filesBefore = userFiles(lib.dataDir);

    disk!.fill();
    assert.equal(disk!.freeBytes(), 0);
    const snapshot = () =>
      c.raw('POST', `/study-sets/${lib.topicid}/snapshots`, { body: { description: 'on a full disk' } });
    const upload = () =>
      c.raw('POST', '/library/documents/upload', { query: { filename: 'other.pdf', confirm: '1' }, bytes: OTHER_PDF });
    const submit = () => c.raw('POST', `/bundles/${lib.bundleId}/submit`, { body: { resultMarkdown: RESULT_MD } });
    const exportPdf = () => c.raw('POST', `/documents/${lib.bookmd5}/export`, { body: { topicid: lib.topicid } });
    assert507(await snapshot(), 'snapshot');
    assert507(await upload(), 'upload');
    assert507(await submit(), 'bundle submit');
    assert507(await exportPdf(), 'export');

    assert.deepEqual(await readState(c, lib.topicid), before, 'the read routes show nothing changed');
    assert.deepEqual(
      userFiles(lib.dataDir),
      filesBefore,
      'no file was added: no .part, .tmp, half export or snapshot file',
    );
    const status = await c.request<{ storage: { writable: boolean; freeBytes: number; reason?: string } }>(
      'GET',
      '/status',
    );
    assert.deepEqual(status.storage, { writable: false, freeBytes: 0, reason: 'disk_full' });

    disk!.free();
    const snap = await snapshot();
    assert.equal(snap.status, 200, snap.text());
    assert.equal(snap.json<{ created: boolean }>().created, true);
    const up = await upload();
    assert.equal(up.status, 200, up.text());
    assert.equal(
      up.json<{ created: boolean; filename: string }>().created,
      true,
      'the failed upload had stored nothing',
    );
    assert.equal(
      up.json<{ filename: string }>().filename,
      'other.pdf',
      'no "other (2).pdf": nothing was left under the name',
    );
    const sub = await submit();
    assert.equal(sub.status, 200, sub.text());
    assert.equal(sub.json<{ parsed: { importedCards: number } }>().parsed.importedCards, 2);
    const exp = await exportPdf();
    assert.equal(exp.status, 200, exp.text());
    assert.ok(existsSync(exp.json<{ path: string }>().path));
    const after = await c.request<{ storage: { writable: boolean; freeBytes: number } }>('GET', '/status');
    assert.equal(after.storage.writable, true);
    assert.ok(after.storage.freeBytes > 1024 * 1024);
  });

  it('a card create and a bundle prepare whose journal append fails for space answer 507 and take no effect; once space is back they succeed (needs the journal retry)', async () => {
    const lib = await makeLibrary(disk!);
    bridges.push(lib.bridge);
    const c = lib.client;
    const before = await readState(c, lib.topicid);
    disk!.fill();
    // Large enough that the journal record cannot fit in the slack of its last page.
    const card = () =>
      c.raw('POST', `/study-sets/${lib.topicid}/notes`, {
        body: { title: 'On a full disk', text: 'x'.repeat(60_000), confirm: true },
      });
    const prepare = () =>
      c.raw('POST', '/bundles/prepare', {
        body: {
          topicid: lib.topicid,
          bookmd5: lib.bookmd5,
          segments: [{ startPage: 3, endPage: 4 }],
          preset: 'book-breakdown',
          anchorMode: 'page_text',
        },
      });
    assert507(await card(), 'card create');
    assert507(await prepare(), 'bundle prepare');
    assert.deepEqual(await readState(c, lib.topicid), before, 'the read routes show nothing changed');

    disk!.free();
    const made = await card();
    assert.equal(made.status, 200, made.text());
    const prepared = await prepare();
    assert.equal(prepared.status, 200, prepared.text());
    const tree = await c.request<{ nodes?: unknown[] }>('GET', `/study-sets/${lib.topicid}/tree`);
    assert.ok(JSON.stringify(tree).includes('On a full disk'), 'the card written after space came back is there');
  });

  it('a bridge started on a full disk listens, serves reads, refuses writes with 507 and says so in /status; once space is back it is writable without a restart', async () => {
    const lib = await makeLibrary(disk!);
    lib.bridge.child.kill('SIGTERM');
    assert.equal((await lib.bridge.exited).code, 0);
    disk!.fill();
    assert.equal(disk!.freeBytes(), 0);

    const bridge = await spawnBridge(['--data', lib.dataDir, '--port', '0']); // before: exited with ENOSPC writing library.lock
    bridges.push(bridge);
    const c = new BridgeClient({ baseUrl: bridge.baseUrl, token: lib.client.token });
    const status = await c.request<{ storage: { writable: boolean; freeBytes: number; reason?: string } }>(
      'GET',
      '/status',
    );
    assert.deepEqual(status.storage, { writable: false, freeBytes: 0, reason: 'disk_full' });
    assert.ok(!existsSync(join(lib.dataDir, 'bridge.json')), 'no half-written bridge.json');

    const sets = await c.request<{ studySets: Array<{ topicid: string; noteCount: number }> }>(
      'GET',
      '/library/study-sets',
    );
    assert.deepEqual(
      sets.studySets.map((s) => [s.topicid, s.noteCount]),
      [[lib.topicid, 2]],
    );
    const pages = await c.request<{ pages: Array<{ page: number; text: string }> }>(
      'GET',
      `/documents/${lib.bookmd5}/pages`,
      { query: { start: '1', end: '2' } },
    );
    assert.equal(pages.pages.length, 2);
    const found = await c.raw('GET', `/bundles/${lib.bundleId}/files`);
    assert.equal(found.status, 200, found.text());

    const snap = await c.raw('POST', `/study-sets/${lib.topicid}/snapshots`, {
      body: { description: 'on a full disk' },
    });
    assert507(snap, 'snapshot');
    const exp = await c.raw('POST', `/documents/${lib.bookmd5}/export`, { body: { topicid: lib.topicid } });
    assert507(exp, 'export');

    disk!.free();
    let writable = false;
    for (let i = 0; i < 30 && !writable; i++) {
      writable = (await c.request<{ storage: { writable: boolean } }>('GET', '/status')).storage.writable;
      if (!writable) await sleep(100);
    }
    assert.ok(writable, '/status says writable again');
    assert.ok(existsSync(join(lib.dataDir, 'bridge.json')), 'bridge.json is published once space is back');
    const again = await c.raw('POST', `/study-sets/${lib.topicid}/snapshots`, {
      body: { description: 'space is back' },
    });
    assert.equal(again.status, 200, again.text());
    bridge.child.kill('SIGTERM');
    assert.equal((await bridge.exited).code, 0);
  });

  it('a bridge started on a full disk refuses a card create with 507; once space is back the card is stored (needs the journal retry)', async () => {
    const lib = await makeLibrary(disk!);
    lib.bridge.child.kill('SIGTERM');
    await lib.bridge.exited;
    disk!.fill();
    const bridge = await spawnBridge(['--data', lib.dataDir, '--port', '0']);
    bridges.push(bridge);
    const c = new BridgeClient({ baseUrl: bridge.baseUrl, token: lib.client.token });
    const card = () =>
      c.raw('POST', `/study-sets/${lib.topicid}/notes`, {
        body: { title: 'After a full start', text: 'y'.repeat(60_000), confirm: true },
      });
    assert507(await card(), 'card create');
    disk!.free();
    const made = await card();
    assert.equal(made.status, 200, made.text());
    const sets = await c.request<{ studySets: Array<{ noteCount: number }> }>('GET', '/library/study-sets');
    assert.equal(sets.studySets[0].noteCount, 3);
  });
});
