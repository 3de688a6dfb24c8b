import assert from 'node:assert/strict';
import { copyFileSync, existsSync, truncateSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildReplicaImage, type ReplicaImage } from '../../src/server/ground/store/checkpointReplica';
import { readJournal } from '../../src/server/ground/store/journal';
import { Store } from '../../src/server/ground/store/store';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';

/**
 * A large library's checkpoint is built by a worker from library.db and the
 * journal (store/checkpointReplica.ts). Here every size counts as large
 * (offThreadCheckpointBytes: 0), and the cards are written over HTTP as an
 * agent writes them.
 */

/** The library as rows: every table but the card index's own (FTS4 lays out its segments by transaction) and the checkpoint's stamp. */
function rowsOf(store: Store): Record<string, unknown[]> {
  const tables = store
    .all<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`,
    )
    .map((t) => t.name)
    .filter((n) => !/_(content|segments|segdir|docsize|stat)$/.test(n));
  const out: Record<string, unknown[]> = {};
  for (const t of tables) {
    const rows = store.all(`SELECT * FROM "${t}" ORDER BY rowid`);
    out[t] = t === 'meta' ? rows.filter((r) => (r as { key: string }).key !== 'journal_seq') : rows;
  }
  return out;
}

/** The data dir's library.db and journal as they are on disk now, opened elsewhere (as the next start after kill -9 reads them). */
async function reopenedCopy(dataDir: string): Promise<Store> {
  const copy = tempDir();
  copyFileSync(join(dataDir, 'library.db'), join(copy, 'library.db'));
  if (existsSync(join(dataDir, 'library.journal')))
    copyFileSync(join(dataDir, 'library.journal'), join(copy, 'library.journal'));
  return Store.open(copy, { idleCheckpointMs: 0 });
}

describe('checkpoint built off the store thread (a large library)', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let topicid: string;
  let store: Store;

  beforeEach(async () => {
    t = await startBridge({ store: { offThreadCheckpointBytes: 0, idleCheckpointMs: 0 } });
    store = t.bridge.services.store;
    // The first checkpoint has no library.db to build from: the worker replays the journal from its first record.
    await store.checkpoint();
    assert.equal(store.lastCheckpoint?.builtOffThread, true, store.lastCheckpoint?.offThreadFailure);
    topicid = (await t.client.createStudySet('Photosynthesis')).topicid;
    const root = (await t.client.cards.create(topicid, { title: '叶绿体的结构与功能' })).noteid;
    for (let i = 0; i < 30; i++)
      await t.client.cards.create(topicid, { parentNoteId: root, title: `Card ${i}`, text: `光合作用 step ${i}` });
  });

  afterEach(() => t.stop());

  it('writes the library the store holds; writes made meanwhile stay in the journal; both survive a crash right after', async () => {
    const cards = (await t.client.cards.tree(topicid)).nodes.filter((n) => n.title.startsWith('Card '));
    await t.client.cards.setTitle(cards[0].noteid, 'renamed before the checkpoint', cards[0].title.slice(0, 32));
    await t.client.cards.delete([cards[1].noteid]);

    const cp = store.checkpoint();
    const during = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.client.cards.create(topicid, { title: `during ${i}` })),
    );
    await cp;
    const stats = store.lastCheckpoint!;
    assert.equal(stats.builtOffThread, true, `built off the thread (${stats.offThreadFailure ?? 'no failure'})`);
    assert.equal(stats.offThreadFailure, undefined);
    assert.equal(stats.mode, 'pages', 'only the changed pages were written');
    assert.ok(stats.holdMs < stats.exportMs, 'the store thread was held only to note where the journal ends');

    // The journal keeps exactly the writes acknowledged after the checkpoint began.
    const left = readJournal(join(t.dataDir, 'library.journal')).records;
    assert.ok(left.length >= 5, `the five cards made meanwhile are still journaled (${left.length} records)`);

    const again = await reopenedCopy(t.dataDir);
    try {
      assert.deepEqual(rowsOf(again), rowsOf(store), 'library.db + journal read back as the store holds the library');
      assert.equal(again.integrityCheck(), 'ok');
      for (const c of during)
        assert.ok(again.get('SELECT 1 FROM notes WHERE noteid = ?', [c.noteid]), `${c.title} survived`);
      // The card index came through too: the CJK word is found in the copy as in the store.
      const hits = (s: Store) =>
        s.all<{ docid: number }>(`SELECT docid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY docid`, ['"叶绿 绿体"']);
      assert.equal(hits(again).length, 1);
      assert.deepEqual(hits(again), hits(store));
    } finally {
      await again.close();
    }
    // And the next checkpoint starts from the file this one wrote.
    await t.client.cards.create(topicid, { title: 'after' });
    await store.checkpoint();
    assert.equal(store.lastCheckpoint?.builtOffThread, true);
    assert.equal(readJournal(join(t.dataDir, 'library.journal')).records.length, 0);
  });

  it("when the journal on disk no longer holds what the store acknowledged, the worker's image is refused and the store exports its own: nothing is lost", async () => {
    const before = rowsOf(store);
    // Damage: the journal's acknowledged records are gone from disk (memory still holds them).
    truncateSync(join(t.dataDir, 'library.journal'), 0);
    await store.checkpoint();
    const stats = store.lastCheckpoint!;
    assert.equal(stats.builtOffThread, false);
    assert.match(stats.offThreadFailure ?? '', /the journal holds 0 bytes, the checkpoint needs \d+/);
    const again = await reopenedCopy(t.dataDir);
    try {
      assert.deepEqual(rowsOf(again), before);
      assert.equal(
        (await t.client.cards.tree(topicid)).nodes.filter((n) => n.title.startsWith('Card ')).length,
        30,
        'the cards are served as before',
      );
    } finally {
      await again.close();
    }
  });
});

describe('checkpoint image built from library.db and the journal', function () {
  this.timeout(60_000);

  async function storeWithWrites(): Promise<{ dir: string; s: Store }> {
    const dir = tempDir();
    const s = await Store.open(dir, { idleCheckpointMs: 0, offThreadCheckpointBytes: 0 });
    await s.checkpoint();
    for (let i = 0; i < 10; i++)
      await s.write((tx) =>
        tx.run(
          `INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'studyset', ?, 'a', 'a')`,
          [`T${i}`, `T${i}`],
        ),
      );
    return { dir, s };
  }

  it("a new library's first checkpoint (no library.db yet) is built from the journal alone, and reads back as the store holds it", async () => {
    const dir = tempDir();
    const s = await Store.open(dir, { idleCheckpointMs: 0, offThreadCheckpointBytes: 0 });
    try {
      await s.write((tx) =>
        tx.run(
          `INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES ('F', 'studyset', 'F', 'a', 'a')`,
        ),
      );
      assert.equal(existsSync(join(dir, 'library.db')), false);
      await s.checkpoint();
      const stats = s.lastCheckpoint!;
      assert.equal(stats.builtOffThread, true, stats.offThreadFailure);
      assert.equal(stats.mode, 'whole');
      assert.equal(readJournal(join(dir, 'library.journal')).records.length, 0, 'the journal was folded in');
      const again = await reopenedCopy(dir);
      try {
        assert.deepEqual(rowsOf(again), rowsOf(s));
        assert.equal(again.integrityCheck(), 'ok');
        assert.equal(again.schemaVersion, s.schemaVersion);
      } finally {
        await again.close();
      }
    } finally {
      await s.close();
    }
  });

  it('refuses an image that would not end where the store is (a record missing or the journal cut short)', async () => {
    const { dir, s } = await storeWithWrites();
    try {
      const input = {
        dbPath: join(dir, 'library.db'),
        journalPath: join(dir, 'library.journal'),
        upTo: s.journalBytes,
        seq: s.revision,
      };
      const ok = await buildReplicaImage(input);
      assert.equal(ok.replayed, 10);
      await assert.rejects(buildReplicaImage({ ...input, seq: s.revision + 1 }), /reach seq \d+, the store is at \d+/);
      await assert.rejects(
        buildReplicaImage({ ...input, upTo: input.upTo + 1 }),
        /the journal holds \d+ bytes, the checkpoint needs \d+/,
      );
    } finally {
      await s.close();
    }
  });

  it('closing the store while its worker replays ends the worker; the checkpoint is exported on the store thread and nothing is lost', async () => {
    const { dir, s } = await storeWithWrites();
    // A journal long enough that the worker is still starting or replaying when close comes.
    for (let i = 0; i < 40; i++)
      await s.write((tx) => {
        for (let j = 0; j < 50; j++)
          tx.run(
            `INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES (?, 'studyset', ?, 'a', 'a')`,
            [`U${i}-${j}`, 'x'.repeat(200)],
          );
      });
    const cp = s.checkpoint();
    await s.close();
    await cp;
    assert.equal(s.lastCheckpoint?.builtOffThread, false);
    assert.match(
      s.lastCheckpoint?.offThreadFailure ?? '',
      /the checkpoint worker was (ended|not started): the store is closing/,
    );
    assert.equal(
      readJournal(join(dir, 'library.journal')).records.length,
      0,
      'the close folded every write into library.db',
    );
    const again = await Store.open(dir, { idleCheckpointMs: 0 });
    try {
      assert.equal(again.get<{ n: number }>(`SELECT count(*) AS n FROM topics`)!.n, 10 + 40 * 50);
    } finally {
      await again.close();
    }
  });

  it('the bundled worker (dist/checkpointWorker.js) builds the same image beside the bundled sql.js', async function () {
    const script = resolve(__dirname, '../../dist/checkpointWorker.js');
    if (!existsSync(script)) this.skip(); // npm test builds dist/ before mocha; a bare `mocha` run from source has none
    const { dir, s } = await storeWithWrites();
    try {
      const input = {
        dbPath: join(dir, 'library.db'),
        journalPath: join(dir, 'library.journal'),
        upTo: s.journalBytes,
        seq: s.revision,
      };
      const fromWorker = await new Promise<ReplicaImage>((done, fail) => {
        const w = new Worker(script, { workerData: input });
        w.once('message', (m: { image?: ReplicaImage; error?: string }) =>
          m.image ? done(m.image) : fail(new Error(m.error)),
        );
        w.once('error', fail);
      });
      const here = await buildReplicaImage(input);
      assert.equal(fromWorker.replayed, 10);
      assert.deepEqual(Array.from(fromWorker.crcs), Array.from(here.crcs), 'page for page the same image');
    } finally {
      await s.close();
    }
  });
});
