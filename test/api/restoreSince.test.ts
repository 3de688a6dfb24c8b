import { UNNAMED_AGENT } from '../../src/server/actor';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertNote, recordOperation, reindexNote } from '../../src/server/domain/cards/noteRows';
import { linkNotes } from '../../src/server/domain/cards/noteLinks';
import { contentHash, readSnapshotBytes } from '../../src/server/domain/cards/snapshotContent';
import { newId } from '../../src/server/domain/library/ids';
import type { Store } from '../../src/server/ground/store/store';
import { migrations } from '../../src/server/ground/store/schema';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { UNDO_MIGRATIONS_12_TO_14 } from '../helpers/schemaRewind';

/**
 * A restore compares only the cards stamped since the snapshot (card_edits,
 * schema migration 11). These tests make edits of every kind, including
 * ones the operation log does not name (siblings renumbered by a delete, a
 * link, a raw UPDATE), and check that the restore gives back the snapshot's
 * content byte for byte: the set's content hash is the snapshot's again.
 */
describe('restore compares only the cards changed since the snapshot (card_edits)', function () {
  this.timeout(90_000);

  const now = '2024-01-01T00:00:00.000Z';
  const hashOf = (s: Store, topicid: string) => contentHash(readSnapshotBytes(s, topicid));

  /** root → A (comment, tag) → A1, A2, A3; root → B; root → C. */
  async function makeSet(t: TestBridge, title: string) {
    const set = await t.client.createStudySet(title);
    const root = set.rootNoteId!;
    const ids = { root, A: newId(), A1: newId(), A2: newId(), A3: newId(), B: newId(), C: newId() };
    await t.bridge.services.store.write((tx) => {
      insertNote(tx, { noteid: ids.A, topicid: set.topicid, parentId: root, title: 'Alpha', text: 'alpha body', now });
      for (const k of ['A1', 'A2', 'A3'] as const)
        insertNote(tx, { noteid: ids[k], topicid: set.topicid, parentId: ids.A, title: `Alpha ${k}`, now });
      insertNote(tx, { noteid: ids.B, topicid: set.topicid, parentId: root, title: 'Beta', now });
      insertNote(tx, { noteid: ids.C, topicid: set.topicid, parentId: root, title: 'Gamma', now });
      tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 1, 'a comment', 0, 'text')`, [ids.A]);
      tx.run(`INSERT INTO note_hashtags(noteid, path) VALUES (?, 'bio/cells')`, [ids.A]);
      reindexNote(tx, ids.A);
      recordOperation(tx, {
        topicid: set.topicid,
        kind: 'create',
        actor: UNNAMED_AGENT,
        noteIds: Object.values(ids),
        now,
      });
    });
    return { topicid: set.topicid, ids };
  }

  /** Edits through the routes and through raw writes that log no operation. */
  async function editEverything(t: TestBridge, topicid: string, ids: Awaited<ReturnType<typeof makeSet>>['ids']) {
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await t.client.raw('POST', path, { body: { ...body, confirm: true } });
      assert.equal(res.status, 200, `${path}: ${res.text()}`);
    };
    await post(`/notes/${ids.B}/title`, { text: 'Beta renamed', expectedPrefix: 'Beta' });
    await post('/notes/hashtags', { noteIds: [ids.B], operation: 'add', hashtags: ['new/tag'] });
    await post(`/notes/${ids.C}/comments`, { text: 'a new comment' });
    await post('/notes/delete', { noteIds: [ids.A1] }); // A2 and A3 are renumbered: the operation names A1 only
    await post('/notes/metadata', { noteIds: [ids.A], patch: { colorIndex: 4 } });
    await post(`/study-sets/${topicid}/notes`, { title: 'Created after', parentNoteId: ids.root });
    await t.bridge.services.store.write((tx) => {
      linkNotes(tx, ids.B, ids.C, now);
      tx.run('UPDATE notes SET position = 7 WHERE noteid = ?', [ids.root]); // no operation, no modified_at
      tx.run(`UPDATE note_texts SET text = 'changed quietly' WHERE noteid = ? AND idx = 1`, [ids.A]);
    });
  }

  async function restore(t: TestBridge, snapshotId: string) {
    const res = await t.client.raw('POST', `/snapshots/${snapshotId}/restore`, {
      body: { confirm: true, force: true },
    });
    assert.equal(res.status, 200, res.text());
    return res.json<any>();
  }

  it('after edits of every kind, the set is the snapshot again byte for byte; unchanged cards are not rewritten', async () => {
    const t = await startBridge();
    try {
      const store = t.bridge.services.store;
      const { topicid, ids } = await makeSet(t, 'Since');
      const snap = await t.client.call('POST /study-sets/{id}/snapshots', {
        params: { id: topicid },
        body: { description: 'before' },
      });
      const wanted = hashOf(store, topicid);
      await editEverything(t, topicid, ids);
      assert.notEqual(hashOf(store, topicid), wanted);
      const restored = await restore(t, snap.snapshotId);
      assert.equal(hashOf(store, topicid), wanted, 'the set holds exactly the snapshot again');
      assert.equal(restored.noteCount, 7);
      // The restore's operation names the cards it rewrote: the edited ones, never the untouched ones (A's children aside).
      const op = store.get<{ note_ids: string }>(
        `SELECT note_ids FROM operations WHERE topicid = ? AND kind = 'restore' ORDER BY op_seq DESC LIMIT 1`,
        [topicid],
      )!;
      const rewritten = new Set(JSON.parse(op.note_ids) as string[]);
      for (const k of ['A', 'A1', 'A2', 'A3', 'B', 'C', 'root'] as const)
        assert.ok(rewritten.has(ids[k]), `${k} changed and is rewritten`);
      assert.equal(rewritten.size, 8, 'plus the card created after, removed');
      // Restoring the protection snapshot goes forward again, exactly.
      const forward = hashOf(store, topicid);
      const back = await restore(t, restored.protectionSnapshotId);
      assert.equal(
        hashOf(store, topicid),
        store.get<{ h: string }>('SELECT content_hash AS h FROM snapshots WHERE snapshot_id = ?', [
          restored.protectionSnapshotId,
        ])!.h,
      );
      assert.notEqual(forward, hashOf(store, topicid));
      assert.equal(back.noteCount, 7, 'A1 deleted, one card created');
      // A second restore of the first snapshot, with nothing new stamped in between but the restores themselves.
      await restore(t, snap.snapshotId);
      assert.equal(hashOf(store, topicid), wanted);
    } finally {
      await t.stop();
    }
  });

  it('a data dir from before migration 11: edits made then are all compared (every card is stamped by the migration)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-restore-since-'));
    try {
      const t1 = await startBridge({ dataDir });
      const { topicid, ids } = await makeSet(t1, 'Old');
      const snap = await t1.client.call('POST /study-sets/{id}/snapshots', {
        params: { id: topicid },
        body: { description: 'old' },
      });
      const wanted = hashOf(t1.bridge.services.store, topicid);
      // Back to schema 10: no stamps, no triggers; then edits as the previous build made them.
      await t1.bridge.services.store.write((tx) => {
        for (const r of tx.all<{ name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'card_edits_%'`,
        ))
          tx.run(`DROP TRIGGER ${r.name}`);
        tx.run('DROP TABLE card_edits');
        tx.run(`UPDATE meta SET value = '10' WHERE key = 'schema_version'`);
        for (const sql of UNDO_MIGRATIONS_12_TO_14) tx.run(sql);
      });
      await editEverything(t1, topicid, ids);
      await t1.stop();

      const t2 = await startBridge({ dataDir });
      try {
        const store = t2.bridge.services.store;
        assert.equal(store.schemaVersion, migrations.at(-1)!.version);
        assert.equal(
          store.get<{ n: number }>('SELECT count(*) AS n FROM card_edits')!.n,
          store.get<{ n: number }>('SELECT count(*) AS n FROM notes')!.n,
          'every card stamped',
        );
        await restore(t2, snap.snapshotId);
        assert.equal(hashOf(store, topicid), wanted);
        // Snapshots taken after the migration compare only what changes after them.
        const snap2 = await t2.client.call('POST /study-sets/{id}/snapshots', {
          params: { id: topicid },
          body: { description: 'new' },
        });
        const wanted2 = hashOf(store, topicid);
        const res = await t2.client.raw('POST', `/notes/${ids.C}/title`, {
          body: { text: 'Gamma again', expectedPrefix: 'Gamma', confirm: true },
        });
        assert.equal(res.status, 200, res.text());
        const restored = await restore(t2, snap2.snapshotId);
        assert.equal(hashOf(store, topicid), wanted2);
        const op = store.get<{ note_ids: string }>(
          `SELECT note_ids FROM operations WHERE topicid = ? AND kind = 'restore' ORDER BY op_seq DESC LIMIT 1`,
          [topicid],
        )!;
        assert.deepEqual(JSON.parse(op.note_ids), [ids.C], 'only the edited card is rewritten');
        assert.ok(restored.protectionSnapshotId);
      } finally {
        await t2.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a table with a column the snapshot lacks: every card is compared (no trigger fires for ALTER TABLE)', async () => {
    const t = await startBridge();
    try {
      const store = t.bridge.services.store;
      const { topicid, ids } = await makeSet(t, 'Columns');
      const snap = await t.client.call('POST /study-sets/{id}/snapshots', {
        params: { id: topicid },
        body: { description: 'narrow' },
      });
      // As a later migration would: a new column with a default, filled in without touching card_edits' stamps.
      await store.write((tx) => {
        tx.run(`ALTER TABLE note_hashtags ADD COLUMN weight INTEGER NOT NULL DEFAULT 1`);
        tx.run(`DROP TRIGGER card_edits_tags_upd`);
        tx.run(`UPDATE note_hashtags SET weight = 2 WHERE noteid = ?`, [ids.A]);
      });
      const restored = await restore(t, snap.snapshotId);
      assert.equal(restored.noteCount, 7);
      const op = store.get<{ note_ids: string }>(
        `SELECT note_ids FROM operations WHERE topicid = ? AND kind = 'restore' ORDER BY op_seq DESC LIMIT 1`,
        [topicid],
      )!;
      assert.ok((JSON.parse(op.note_ids) as string[]).includes(ids.A), 'A differs on the new column and is rewritten');
      assert.equal(
        store.get<{ w: number }>('SELECT weight AS w FROM note_hashtags WHERE noteid = ?', [ids.A])!.w,
        1,
        'the column takes its default again, as before migration 11',
      );
    } finally {
      await t.stop();
    }
  });
});
