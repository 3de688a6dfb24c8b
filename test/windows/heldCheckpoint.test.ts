import assert from 'node:assert/strict';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/bridgeFixture';
import { holdOpen, startWineBridge } from './wineBridge';

/**
 * Windows refuses a rename over a file another process holds open (EPERM
 * under Wine, as on Windows). A backup tool or a database viewer reading
 * library.db must not stop checkpoints: the whole-file write falls back to
 * writing pages in place (same inode), and once nobody holds the file the
 * next whole-file checkpoint replaces it by rename (a new inode).
 */
describe('Windows: a checkpoint while another process reads library.db', function () {
  this.timeout(600_000);

  it('a checkpoint while a Windows reader holds library.db: writes go on and it completes in place, nothing lost', async () => {
    // A data dir of its own: a small library.db, so a few large cards change most of its pages.
    const dir = tempDir('sb-win-held-');
    let c = await startWineBridge(dir);
    try {
      const db = join(dir, 'library.db');
      const journal = join(dir, 'library.journal');
      const waitCheckpoint = async () => {
        for (let i = 0; i < 300 && statSync(journal).size > 0; i++) await new Promise((r) => setTimeout(r, 200));
        assert.equal(statSync(journal).size, 0, 'the idle checkpoint folded the journal into library.db');
      };
      const set = await c.owner.createStudySet('Held set');
      const acked: string[] = [];
      /** Cards worth more bytes than library.db holds: a whole-file checkpoint (a rename over it) follows. */
      const outgrow = async (tag: string) => {
        const target = statSync(db).size * 1.5;
        for (let i = 0, bytes = 0; bytes < target; i++, bytes += 40_000) {
          const text = `${tag} ${i} ` + Array.from({ length: 4000 }, (_, k) => `w${(k * 7919 + i) % 9973}`).join(' ');
          const r = await c.owner.request<{ noteid: string }>('POST', `/study-sets/${set.topicid}/notes`, {
            body: { parentNoteId: set.rootNoteId, title: `${tag} ${i}`, text: text.slice(0, 40_000), confirm: true },
          });
          acked.push(r.noteid);
        }
      };
      await waitCheckpoint();
      const reader = await holdOpen(db);
      try {
        const held = statSync(db);
        await outgrow('held');
        await waitCheckpoint();
        const after = statSync(db);
        assert.ok(after.size > held.size * 1.5, `library.db grew (${held.size} → ${after.size})`);
        assert.equal(after.ino, held.ino, 'written in place: Windows refused the rename over the held file');
      } finally {
        await reader.release();
      }
      // With nobody holding it, the next whole-file checkpoint replaces the file (a new inode).
      const free = statSync(db);
      await outgrow('free');
      await waitCheckpoint();
      assert.notEqual(statSync(db).ino, free.ino, 'replaced by rename once nobody held it');
      await c.kill9();
      c = await startWineBridge(dir);
      const read = await c.owner.cards.batchGet(acked);
      assert.deepEqual(read.notFound, []);
      assert.equal((await c.owner.cards.tree(set.topicid)).count, acked.length + 1, 'the root and every card');
    } finally {
      await c.kill9();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
