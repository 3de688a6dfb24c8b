import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { migrations } from '../../src/server/ground/store/schema';
import { startBridge, tempDir } from '../helpers/bridgeFixture';

/**
 * Schema 18 drops two indexes every write paid for and no read needed
 * (schemaMigrations.ts): a new library never has them, and a library a
 * schema-17 bridge left loses them at its next start, its rows kept.
 */
describe('schema 18: the review log by deck and the card index by set are read through other indexes', function () {
  this.timeout(60_000);
  const DROPPED = ['review_logs_deck', 'notes_fts_content_topic'];
  const KEPT = ['review_logs_deck_stats', 'review_logs_card', 'notes_fts_content_noteid', 'notes_topic'];
  const indexes = (t: Awaited<ReturnType<typeof startBridge>>) =>
    t.bridge.services.store
      .all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index'`)
      .map((r) => r.name);

  it('a new library has neither; the indexes that serve their reads are there', async () => {
    const t = await startBridge();
    try {
      const names = indexes(t);
      for (const n of DROPPED) assert.ok(!names.includes(n), n);
      for (const n of KEPT) assert.ok(names.includes(n), n);
    } finally {
      await t.stop();
    }
  });

  it('a schema-17 library loses both at its next start and keeps its cards searchable', async () => {
    const dataDir = tempDir();
    try {
      const t1 = await startBridge({ dataDir });
      const set = await t1.client.createStudySet('Upgrade');
      await t1.client.call('POST /study-sets/{id}/notes', {
        params: { id: set.topicid },
        body: { title: 'Chloroplast', text: 'thylakoid membranes', confirm: true },
      });
      await t1.bridge.services.store.write((tx) => {
        tx.run('CREATE INDEX review_logs_deck ON review_logs(deck_id, reviewed_at)');
        tx.run('CREATE INDEX notes_fts_content_topic ON notes_fts_content(c1topicid)');
        tx.run(`UPDATE meta SET value = '17' WHERE key = 'schema_version'`);
      });
      assert.equal(indexes(t1).filter((n) => DROPPED.includes(n)).length, 2);
      await t1.stop();

      const t2 = await startBridge({ dataDir });
      try {
        assert.equal(t2.bridge.services.store.schemaVersion, migrations.at(-1)!.version);
        assert.ok(migrations.at(-1)!.version >= 18);
        const names = indexes(t2);
        for (const n of DROPPED) assert.ok(!names.includes(n), n);
        const hits = await t2.client.call('GET /search', { query: { q: 'thylakoid', scope: 'notes' } });
        assert.equal(hits.notes.length, 1);
      } finally {
        await t2.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
