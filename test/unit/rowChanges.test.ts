import assert from 'node:assert/strict';
import { Store, type LibraryChange } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';

/** What an acknowledged batch announces for the cards an operation-log row names (store/rowChanges.ts). */
describe('changes named from the operation log', () => {
  let s: Store;
  beforeEach(async () => {
    s = await Store.open(tempDir(), { idleCheckpointMs: 0 });
  });
  afterEach(() => s.close());

  async function cardsAnnounced(ids: string[]): Promise<LibraryChange | undefined> {
    let seen: readonly LibraryChange[] = [];
    const off = s.onCommit((_r, changes) => (seen = changes));
    await s.write((tx) =>
      tx.run(`INSERT INTO operations(topicid, kind, actor, note_ids, at) VALUES ('T', 'delete', 'agent', ?, 'a')`, [
        JSON.stringify(ids),
      ]),
    );
    off();
    return seen.find((c) => c.kind === 'card');
  }

  it('an operation on a few cards names each of them (deleted ones can be named no other way)', async () => {
    const card = await cardsAnnounced(['N1', 'N2', 'N3']);
    assert.deepEqual(card, { kind: 'card', ids: ['N1', 'N2', 'N3'] });
  });

  it('a bulk operation (an import of thousands of cards) says the cards were cut instead of listing them all', async () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `N${String(i).padStart(24, '0')}`);
    const card = await cardsAnnounced(ids);
    assert.equal(card?.truncated, true);
    assert.ok(card.ids.length < 1000, `${card.ids.length} ids listed`);
  });
});
