import assert from 'node:assert/strict';
import { Store, type CardIndexChange, type LibraryChange, type WriteTx } from '../../src/server/ground/store/store';
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

/** A sliced write too large to note row by row (Store.writeSliced's `unnoted` kinds, RowChanges.pause). */
describe('a write whose rows go unnoted', () => {
  let s: Store;
  beforeEach(async () => {
    s = await Store.open(tempDir(), { idleCheckpointMs: 0 });
  });
  afterEach(() => s.close());

  const insertCard = (tx: WriteTx, id: string) =>
    tx.run(`INSERT INTO notes(noteid, topicid, created_at, modified_at) VALUES (?, 'T', 'a', 'a')`, [id]);

  /** What the next acknowledged batch announces. */
  function announced() {
    const seen: { changes: readonly LibraryChange[]; cardIndex: CardIndexChange }[] = [];
    const off = s.onCommit((_r, changes, cardIndex) => seen.push({ changes, cardIndex }));
    return { seen, off };
  }

  it('announces its kinds cut, the card index all changed, and counts a write no kept pick can take for a schedule', async () => {
    await s.write((tx) =>
      tx.run(`INSERT INTO topics(topicid, kind, title, created_at, modified_at) VALUES ('T', 'set', 'T', 'a', 'a')`),
    );
    const before = new Map(s.writesByTable);
    const topics = before.get('topics') ?? 0;
    const { seen, off } = announced();
    let step = 0;
    await s.writeSliced(
      (tx) => {
        insertCard(tx, `N${step}`);
        return ++step === 3 ? { value: step } : undefined;
      },
      ['card', 'deck'],
    );
    off();
    assert.equal(seen.length, 1);
    assert.deepEqual(
      [...seen[0].changes].sort((a, b) => a.kind.localeCompare(b.kind)),
      [
        { kind: 'card', ids: [], truncated: true },
        { kind: 'deck', ids: [], truncated: true },
      ],
    );
    assert.equal(seen[0].cardIndex.all, true);
    const after = s.writesByTable;
    assert.equal(after.get('notes') ?? 0, before.get('notes') ?? 0, 'no row was noted');
    assert.ok((after.get('(rows not noted)') ?? 0) > 0, 'a write counted where no schedule table is');
    assert.equal(s.topicsWrittenSince(topics), undefined, 'which topics rows it wrote cannot be said');
  });

  it('rows are noted again once it is done, and one that failed announces nothing', async () => {
    const { seen, off } = announced();
    await assert.rejects(
      s.writeSliced(
        (tx) => {
          insertCard(tx, 'GONE');
          throw new Error('refused');
        },
        ['card'],
      ),
      /refused/,
    );
    await s.write((tx) => insertCard(tx, 'KEPT'));
    off();
    assert.deepEqual(
      seen.map((x) => x.changes),
      [[{ kind: 'card', ids: ['KEPT'] }]],
    );
    assert.equal(seen[0].cardIndex.all, false);
  });
});
