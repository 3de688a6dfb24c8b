import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { BridgeClient } from '../../src/client/bridgeClient';
import { contentHash, readSnapshotJson } from '../../src/server/domain/cards/snapshotContent';
import { SnapshotFiles } from '../../src/server/domain/cards/snapshotFiles';
import { Store } from '../../src/server/ground/store/store';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';
import { card, newSet } from '../helpers/libraryFixtures';
import { storeDigest } from '../helpers/storeDigest';

/** Every .snap file under a data dir's snapshots/ folder. */
function snapFiles(dataDir: string): string[] {
  const dir = join(dataDir, 'snapshots');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

describe('snapshot contents as files (<dataDir>/snapshots/, SNAPSHOT_UNREADABLE, migration)', function () {
  this.timeout(120_000);
  let t: TestBridge;
  before(async () => {
    t = await startBridge({ store: { idleCheckpointMs: 0 } });
  });
  after(() => t.stop());

  const store = () => t.bridge.services.store;
  const files = () => t.bridge.services.snapshotFiles;
  const post = (path: string, body: Record<string, unknown>) => t.client.raw('POST', path, { body });
  const snapshot = (id: string, description = '') =>
    t.client.call('POST /study-sets/{id}/snapshots', { params: { id }, body: { description } });
  const tree = async (id: string) => (await t.client.call('GET /study-sets/{id}/tree', { params: { id } })).nodes;
  const hashOf = (snapshotId: string) =>
    store().get<{ content_hash: string }>('SELECT content_hash FROM snapshots WHERE snapshot_id = ?', [snapshotId])!
      .content_hash;
  const fileOf = (snapshotId: string) => files().pathOf(hashOf(snapshotId));

  /** Every row of the set's cards, read independently of the snapshot code. */
  function setDump(topicid: string) {
    const s = store();
    const ofSet = 'SELECT noteid FROM notes WHERE topicid = ?';
    return JSON.stringify({
      notes: s.all('SELECT * FROM notes WHERE topicid = ? ORDER BY noteid', [topicid]),
      texts: s.all(`SELECT * FROM note_texts WHERE noteid IN (${ofSet}) ORDER BY noteid, idx`, [topicid]),
      tags: s.all(`SELECT * FROM note_hashtags WHERE noteid IN (${ofSet}) ORDER BY noteid, path`, [topicid]),
      links: s.all(
        `SELECT * FROM note_links WHERE noteid IN (${ofSet}) OR target_id IN (${ofSet}) ORDER BY noteid, target_id`,
        [topicid, topicid],
      ),
      fts: s.all('SELECT noteid, body FROM notes_fts WHERE topicid = ? ORDER BY noteid', [topicid]),
    });
  }

  /** A set of `n` cards under its root, each with a body, through the card route. */
  async function makeSet(title: string, n: number) {
    const set = await newSet(t, title);
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push(
        await card(t, set.topicid, {
          parentNoteId: set.rootNoteId,
          title: `${title} card ${i}`,
          text: `${title} body ${i} `.repeat(60),
        }),
      );
    return { topicid: set.topicid, root: set.rootNoteId, ids };
  }
  const rename = async (noteid: string, from: string, to: string) =>
    assert.equal(
      (await post(`/notes/${noteid}/title`, { text: to, expectedPrefix: from.slice(0, 32), confirm: true })).status,
      200,
    );

  it('the content lands in a file named by its hash, not in library.db (row data empty; the journal grows by the row, not the content)', async () => {
    const s = await makeSet('Files', 60);
    const json = readSnapshotJson(store(), s.topicid);
    assert.ok(json.length > 60 * 400, `content is ${json.length} bytes`);
    const journalBefore = store().journalBytes;
    const snap = await snapshot(s.topicid, 'first');
    assert.equal(snap.created, true);
    const grew = store().journalBytes - journalBefore;
    assert.ok(grew < 2000, `journal grew by ${grew} bytes for ${json.length} bytes of content`);
    const row = store().get<{ data: string; content_hash: string }>(
      'SELECT data, content_hash FROM snapshots WHERE snapshot_id = ?',
      [snap.snapshotId],
    )!;
    assert.equal(row.data, '');
    assert.match(row.content_hash, /^[0-9a-f]{64}$/);
    const path = join(t.dataDir, 'snapshots', row.content_hash.slice(0, 2), `${row.content_hash}.snap`);
    assert.ok(existsSync(path));
    assert.ok(statSync(path).size < json.length / 2, 'compressed');
    assert.equal(files().read(row.content_hash), json, 'the file gives back the exact JSON');
    assert.equal(store().get<{ n: number }>('SELECT sum(length(data)) AS n FROM snapshots')!.n, 0);
    // The DB itself: a checkpoint after the snapshot is no larger by the content.
    await store().checkpoint();
    const dbBefore = statSync(join(t.dataDir, 'library.db')).size;
    await rename(s.ids[0], 'Files card 0', 'Files card zero');
    await snapshot(s.topicid, 'second');
    await store().checkpoint();
    const dbGrew = statSync(join(t.dataDir, 'library.db')).size - dbBefore;
    assert.ok(dbGrew < json.length / 3, `library.db grew by ${dbGrew} bytes for ${json.length} bytes of content`);
  });

  it('identical content shares one file (a protection snapshot of unchanged cards)', async () => {
    const s = await makeSet('Shared', 3);
    const before = snapFiles(t.dataDir).length;
    const snap = await snapshot(s.topicid, 'shared');
    const res = await post(`/snapshots/${snap.snapshotId}/restore`, { confirm: true });
    assert.equal(res.status, 200, res.text());
    const protection = res.json<any>().protectionSnapshotId;
    assert.equal(hashOf(protection), hashOf(snap.snapshotId));
    assert.equal(snapFiles(t.dataDir).length, before + 1, 'one file for both rows');
  });

  it('restore reads the file and gives back the exact cards', async () => {
    const s = await makeSet('Exact', 8);
    await store().write((tx) => {
      tx.run(`INSERT INTO note_hashtags(noteid, path) VALUES (?, 'bio/cells')`, [s.ids[1]]);
      tx.run(`INSERT INTO note_links(noteid, target_id, created_at) VALUES (?, ?, '2024-01-01T00:00:00Z')`, [
        s.ids[1],
        s.ids[2],
      ]);
    });
    const want = setDump(s.topicid);
    const treeBefore = await tree(s.topicid);
    const snap = await snapshot(s.topicid, 'exact');
    await rename(s.ids[3], 'Exact card 3', 'renamed');
    assert.equal((await post('/notes/delete', { noteIds: [s.ids[4]], confirm: true })).status, 200);
    await t.client.request('POST', `/study-sets/${s.topicid}/notes`, {
      body: { parentNoteId: s.root, title: 'new one', confirm: true },
    });
    assert.notEqual(setDump(s.topicid), want);
    const res = await post(`/snapshots/${snap.snapshotId}/restore`, { confirm: true, force: true });
    assert.equal(res.status, 200, res.text());
    assert.equal(setDump(s.topicid), want);
    assert.deepEqual(await tree(s.topicid), treeBefore);
  });

  describe('a missing or damaged file answers 422 SNAPSHOT_UNREADABLE and changes nothing', () => {
    const damages: Array<[string, (path: string, other: string) => void, string, RegExp]> = [
      ['deleted', (p) => rmSync(p), 'missing', /does not exist/],
      [
        'bytes flipped',
        (p) => {
          const b = readFileSync(p);
          for (let i = 60; i < 70; i++) b[i] ^= 0xff;
          writeFileSync(p, b);
        },
        'corrupt',
        /checksum/,
      ],
      ['truncated', (p) => truncateSync(p, statSync(p).size - 10), 'corrupt', /truncated/],
      ['cut to nothing', (p) => truncateSync(p, 0), 'corrupt', /header/],
      ["another snapshot's file in its place", (p, other) => copyFileSync(other, p), 'corrupt', /another content hash/],
    ];
    for (const [what, damage, reason, problem] of damages) {
      it(`file ${what}: dry-run and restore → 422; listing, the other snapshots and new snapshots still work`, async () => {
        const s = await makeSet(`Damaged ${what}`, 4);
        const a = await snapshot(s.topicid, 'A');
        await rename(s.ids[0], `Damaged ${what} card 0`, 'after A');
        const afterA = await tree(s.topicid);
        const b = await snapshot(s.topicid, 'B');
        await rename(s.ids[1], `Damaged ${what} card 1`, 'after B');
        damage(fileOf(a.snapshotId), fileOf(b.snapshotId));

        const digest = storeDigest(store());
        const filesBefore = snapFiles(t.dataDir);
        const listBefore = await t.client.call('GET /study-sets/{id}/snapshots', { params: { id: s.topicid } });
        for (const body of [{ dryRun: true }, { confirm: true }, { confirm: true, force: true }, {}]) {
          const res = await post(`/snapshots/${a.snapshotId}/restore`, body);
          assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text()}`);
          const e = res.json<any>().error;
          assert.equal(e.code, 'SNAPSHOT_UNREADABLE');
          assert.equal(e.details.snapshotId, a.snapshotId);
          assert.equal(e.details.topicid, s.topicid);
          assert.equal(e.details.reason, reason);
          assert.match(e.details.problem, problem);
          assert.equal(e.details.file, `snapshots/${hashOf(a.snapshotId).slice(0, 2)}/${hashOf(a.snapshotId)}.snap`);
          assert.match(e.message, new RegExp(a.snapshotId));
          assert.match(e.message, /Nothing was changed/);
        }
        assert.equal(storeDigest(store()), digest, 'nothing changed in the store');
        assert.deepEqual(snapFiles(t.dataDir), filesBefore, 'no file written or removed');
        assert.deepEqual(
          await t.client.call('GET /study-sets/{id}/snapshots', { params: { id: s.topicid } }),
          listBefore,
          'listing unaffected',
        );

        // The set's other snapshot still restores, and new snapshots are taken as usual.
        const rb = await post(`/snapshots/${b.snapshotId}/restore`, { confirm: true, force: true });
        assert.equal(rb.status, 200, rb.text());
        assert.deepEqual(await tree(s.topicid), afterA);
        await rename(s.ids[2], `Damaged ${what} card 2`, 'after restore');
        const c = await snapshot(s.topicid, 'C');
        assert.equal(c.created, true);
        assert.equal(
          (await post(`/snapshots/${c.snapshotId}/restore`, { dryRun: true })).status,
          422,
          'dry-run of a readable snapshot: CONFIRM_REQUIRED with the preview',
        );
        assert.equal(
          (await post(`/snapshots/${c.snapshotId}/restore`, { dryRun: true })).json<any>().error.code,
          'CONFIRM_REQUIRED',
        );
        assert.equal(
          (await post(`/snapshots/${a.snapshotId}/restore`, { dryRun: true })).json<any>().error.code,
          'SNAPSHOT_UNREADABLE',
          'still unreadable',
        );
      });
    }
  });

  it('a lost file is written back when the same content is snapshotted again', async () => {
    const s = await makeSet('Heal', 2);
    const a = await snapshot(s.topicid, 'A');
    rmSync(fileOf(a.snapshotId));
    const again = await snapshot(s.topicid, 'again');
    assert.equal(again.created, false, 'unchanged content: the last snapshot is answered again');
    assert.equal(again.snapshotId, a.snapshotId);
    assert.ok(existsSync(fileOf(a.snapshotId)), 'and its file is back');
    assert.equal((await post(`/snapshots/${a.snapshotId}/restore`, { confirm: true })).status, 200);
  });

  it('deleting a set with keepSnapshotHistory:false removes files no other snapshot shares; a restart sweeps orphans', async () => {
    const s = await makeSet('Gone', 2);
    const a = await snapshot(s.topicid, 'A');
    const path = fileOf(a.snapshotId);
    const res = await post(`/study-sets/${s.topicid}/delete`, {
      expectedTitle: 'Gone',
      keepHighlights: false,
      keepSnapshotHistory: false,
      confirm: true,
    });
    assert.equal(res.status, 200, res.text());
    assert.ok(!existsSync(path));
    // An orphan (a rolled-back transaction's file) and a crash's temp file go at the next start; referenced files stay.
    const orphan = SnapshotFiles.of(t.dataDir).put('{"orphan":true}');
    const tmp = join(t.dataDir, 'snapshots', orphan.slice(0, 2), `${orphan}.snap.abcd.tmp`);
    writeFileSync(tmp, 'x');
    const kept = snapFiles(t.dataDir).filter((f) => !f.startsWith(orphan));
    await t.bridge.close();
    t = await startBridge({ dataDir: t.dataDir, store: { idleCheckpointMs: 0 } });
    assert.deepEqual(snapFiles(t.dataDir), kept);
  });

  it('plain-JSON and deflated rows of an older version move to files at start (idempotent)', async () => {
    const s = await makeSet('Legacy text', 3);
    const json = readSnapshotJson(store(), s.topicid);
    const want = setDump(s.topicid);
    const id = '11111111-2222-4333-8444-555555555555';
    await store().write((tx) =>
      tx.run(
        `INSERT INTO snapshots(snapshot_id, topicid, description, note_count, content_hash, data, created_at, op_seq, kind) VALUES (?, ?, 'old', 4, 'not-a-sha256', ?, '2024-01-01T00:00:00Z', 0, 'agent')`,
        [id, s.topicid, json],
      ),
    );
    await rename(s.ids[0], 'Legacy text card 0', 'changed');
    await t.bridge.close();
    t = await startBridge({ dataDir: t.dataDir, store: { idleCheckpointMs: 0 } });
    assert.equal(store().get<{ n: number }>('SELECT count(*) AS n FROM snapshots WHERE length(data) > 0')!.n, 0);
    assert.ok(existsSync(fileOf(id)));
    assert.equal((await post(`/snapshots/${id}/restore`, { confirm: true, force: true })).status, 200);
    assert.equal(setDump(s.topicid), want);
    const digest = storeDigest(store());
    await t.bridge.close();
    t = await startBridge({ dataDir: t.dataDir, store: { idleCheckpointMs: 0 } });
    assert.equal(storeDigest(store()), digest, 'a second start changes nothing');
  });
});

describe('snapshot files: a data dir of the previous build (test/fixtures/legacy-v5)', function () {
  this.timeout(60_000);
  const fixture = join(__dirname, '../fixtures/legacy-v5');
  const manifest = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8'));
  const answer = (path: string) => manifest.answers.find((a: any) => a.path === path);

  it('migrates the inline snapshots to files: same list, same dry-run, and a confirmed restore of the first gives back its tree', async () => {
    const dataDir = tempDir('sb-snap-legacy-');
    writeFileSync(join(dataDir, 'library.db'), gunzipSync(readFileSync(join(fixture, 'data/library.db.gz'))));
    copyFileSync(join(fixture, 'data/token'), join(dataDir, 'token'));
    mkdirSync(join(dataDir, 'library'), { recursive: true });
    const t = await startBridge({ dataDir, store: { idleCheckpointMs: 0 } });
    try {
      const store = t.bridge.services.store;
      assert.equal(
        store.get<{ n: number }>('SELECT count(*) AS n FROM snapshots WHERE length(data) > 0')!.n,
        0,
        'no content left in library.db',
      );
      assert.equal(snapFiles(dataDir).length, 2);
      const listPath = `/study-sets/${manifest.topicid}/snapshots`;
      assert.deepEqual((await t.client.raw('GET', listPath)).json(), answer(listPath).body);
      const [snap1] = manifest.snapshots;
      const dryPath = `/snapshots/${snap1}/restore`;
      assert.deepEqual((await t.client.raw('POST', dryPath, { body: { dryRun: true } })).json(), answer(dryPath).body);

      // Snapshot 1 was taken before "Hilbert basis" was added under "Markov".
      const treePath = `/study-sets/${manifest.topicid}/tree`;
      const later = answer(treePath).body;
      const hilbert = later.nodes.find((n: any) => n.title === 'Hilbert basis');
      const want = {
        ...later,
        count: later.count - 1,
        nodes: later.nodes
          .filter((n: any) => n !== hilbert)
          .map((n: any) => (n.noteid === hilbert.parent ? { ...n, childCount: n.childCount - 1 } : n))
          // Recorded before tree nodes had displayTitle (#17); every card of the fixture has a title.
          .map((n: any) => ({ ...n, displayTitle: n.displayTitle ?? n.title })),
      };
      const res = await t.client.raw('POST', dryPath, { body: { confirm: true } });
      assert.equal(res.status, 200, res.text());
      assert.deepEqual((await t.client.raw('GET', treePath)).json(), want);
    } finally {
      await t.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Runs the built CLI (npm test builds first; alone, run `npm run build` after changing src/). */
describe('snapshot files: an acknowledged snapshot and its file survive kill -9', function () {
  this.timeout(120_000);

  it('snapshots acknowledged just before SIGKILL are listed after restart, their files intact, and restore', async () => {
    const dataDir = tempDir('sb-snap-crash-');
    const first = await spawnBridge(['--data', dataDir, '--port', '0']);
    const client = new BridgeClient({
      baseUrl: first.baseUrl,
      token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
    });
    const set = await client.createStudySet('Crash snapshots');
    const snaps: Array<{ snapshotId: string; tree: unknown }> = [];
    for (let i = 0; i < 5; i++) {
      await client.request('POST', `/study-sets/${set.topicid}/notes`, {
        body: { parentNoteId: set.rootNoteId, title: `card ${i}`, text: `body ${i} `.repeat(50), confirm: true },
      });
      const tree = (await client.call('GET /study-sets/{id}/tree', { params: { id: set.topicid } })).nodes;
      const s = await client.call('POST /study-sets/{id}/snapshots', {
        params: { id: set.topicid },
        body: { description: `s${i}` },
      });
      assert.equal(s.created, true);
      snaps.push({ snapshotId: s.snapshotId, tree });
    }
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');

    const second = await spawnBridge(['--data', dataDir, '--port', '0']);
    try {
      const client2 = new BridgeClient({ baseUrl: second.baseUrl, token: client.token });
      const listed = (
        await client2.call('GET /study-sets/{id}/snapshots', { params: { id: set.topicid } })
      ).snapshots.map((s) => s.snapshotId);
      assert.deepEqual(listed, snaps.map((s) => s.snapshotId).reverse());
      const res = await client2.raw('POST', `/snapshots/${snaps[1].snapshotId}/restore`, {
        body: { confirm: true, force: true },
      });
      assert.equal(res.status, 200, res.text());
      assert.deepEqual(
        (await client2.call('GET /study-sets/{id}/tree', { params: { id: set.topicid } })).nodes,
        snaps[1].tree,
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
    const store = await Store.open(dataDir);
    const files = SnapshotFiles.of(dataDir);
    for (const s of snaps) {
      const h = store.get<{ content_hash: string }>('SELECT content_hash FROM snapshots WHERE snapshot_id = ?', [
        s.snapshotId,
      ])!.content_hash;
      assert.ok(files.read(h).length > 0, `the file of ${s.snapshotId} is intact`);
    }
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('snapshot files: the first format (SBSNAP01, raw deflate) still reads; new files are SBSNAP02 (Brotli)', () => {
  it('reads a file of each format back to its JSON, checked against the hash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-snapfmt-'));
    try {
      const files = new SnapshotFiles(dir);
      const json = JSON.stringify({ format: 1, notes: [{ noteid: 'A', title: '叶绿体的结构 ' + 'x'.repeat(5000) }] });
      const hash = files.put(json);
      assert.equal(readFileSync(files.pathOf(hash)).subarray(0, 8).toString('latin1'), 'SBSNAP02');
      // A file as the first format wrote it, for another content.
      const old = JSON.stringify({ format: 1, notes: [{ noteid: 'B', title: 'old' }] });
      const oldHash = contentHash(old);
      const payload = deflateRawSync(Buffer.from(old));
      const header = Buffer.alloc(8 + 32 + 8);
      header.write('SBSNAP01', 0, 'latin1');
      Buffer.from(oldHash, 'hex').copy(header, 8);
      header.writeUInt32LE(payload.length, 40);
      header.writeUInt32LE(crc32(payload) >>> 0, 44);
      mkdirSync(dirname(files.pathOf(oldHash)), { recursive: true });
      writeFileSync(files.pathOf(oldHash), Buffer.concat([header, payload]));
      const fresh = new SnapshotFiles(dir); // nothing kept in memory: both come from their files
      assert.equal(fresh.read(hash), json);
      assert.equal(fresh.read(oldHash), old);
      assert.equal(fresh.put(old), oldHash, 'an intact file of the first format is reused, not rewritten');
      assert.equal(readFileSync(files.pathOf(oldHash)).subarray(0, 8).toString('latin1'), 'SBSNAP01');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
