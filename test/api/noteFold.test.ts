import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { UNKNOWN_ID, card, ids201, newSet, operations, post, read, refused, treeNodes } from './noteEditsFixture';

describe('POST /notes/fold', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  let parent: string;
  let leaf: string;
  let child: string;
  before(async () => {
    t = await startBridge();
    setId = (await newSet(t, 'Fold set')).topicid;
    parent = await card(t, setId, { title: 'Parent' });
    child = await card(t, setId, { title: 'Child', parentNoteId: parent });
    leaf = await card(t, setId, { title: 'Leaf' });
  });
  after(() => t.stop());

  it('folds cards with children, skips leaves (no_children); tree and batch-get show folded; one operation', async () => {
    const opsBefore = operations(t).length;
    const res = await post(t, '/notes/fold', { noteIds: [parent, leaf], folded: true });
    assert.deepEqual(
      {
        persisted: res.persisted,
        folded: res.folded,
        changed: res.changed,
        unchanged: res.unchanged,
        skipped: res.skipped,
      },
      {
        persisted: true,
        folded: true,
        changed: [parent],
        unchanged: [],
        skipped: [{ noteid: leaf, reason: 'no_children' }],
      },
    );
    const nodes = await treeNodes(t, setId);
    assert.deepEqual([nodes[parent].folded, nodes[leaf].folded, nodes[child].folded], [true, false, false]);
    assert.equal((await read(t, parent))[parent].folded, true);
    const ops = operations(t);
    assert.equal(ops.length, opsBefore + 1);
    assert.deepEqual([ops.at(-1)!.kind, ops.at(-1)!.noteIds], ['fold', [parent]]);
  });

  it('folding a folded card again: unchanged, nothing written', async () => {
    const before = storeDigest(t.bridge.services.store);
    const res = await post(t, '/notes/fold', { noteIds: [parent], folded: true });
    assert.deepEqual([res.persisted, res.changed, res.unchanged], [true, [], [parent]]);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('dry-run (no confirm) of an unfold: wouldChange and skipped; store byte-identical', async () => {
    const err = await refused(
      t,
      '/notes/fold',
      { noteIds: [parent, leaf], folded: false },
      422,
      'CONFIRM_REQUIRED',
      false,
    );
    assert.deepEqual(
      { wouldChange: err.details.wouldChange, skipped: err.details.skipped, folded: err.details.folded },
      { wouldChange: [parent], skipped: [{ noteid: leaf, reason: 'no_children' }], folded: false },
    );
    assert.equal((await treeNodes(t, setId))[parent].folded, true);
  });

  it('unfolds, as the user', async () => {
    const res = await post(t, '/notes/fold', { noteIds: [parent], folded: false }, 'person');
    assert.deepEqual(res.changed, [parent]);
    assert.equal((await treeNodes(t, setId))[parent].folded, false);
    assert.equal(operations(t).at(-1)!.actor, 'user');
  });

  it('a card whose only child is hidden counts as a leaf', async () => {
    const p = await card(t, setId, { title: 'Hidden child parent' });
    const c = await card(t, setId, { title: 'Gone', parentNoteId: p });
    await t.bridge.services.store.write((tx) => tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [c]));
    const res = await post(t, '/notes/fold', { noteIds: [p], folded: true });
    assert.deepEqual([res.changed, res.skipped], [[], [{ noteid: p, reason: 'no_children' }]]);
  });

  it('unknown fields → ignoredFields', async () => {
    const res = await post(t, '/notes/fold', { noteIds: [leaf], folded: true, recursive: true });
    assert.deepEqual(res.ignoredFields, ['recursive']);
  });

  describe('refusals (nothing written)', () => {
    it('missing folded → 422', () => refused(t, '/notes/fold', { noteIds: [parent] }, 422, 'INVALID_INPUT'));
    it('folded not a boolean → 422', () =>
      refused(t, '/notes/fold', { noteIds: [parent], folded: 'yes' }, 422, 'INVALID_INPUT'));
    it('201 cards → 422, nothing written', () =>
      refused(t, '/notes/fold', { noteIds: ids201(parent), folded: true }, 422, 'INVALID_INPUT'));
    it('an unknown card → 404 NOTE_NOT_FOUND; the known card is not folded', async () => {
      await refused(t, '/notes/fold', { noteIds: [parent, UNKNOWN_ID], folded: true }, 404, 'NOTE_NOT_FOUND');
      assert.equal((await treeNodes(t, setId))[parent].folded, false);
    });
    it('the dry-run of an unknown card → 404 too', () =>
      refused(t, '/notes/fold', { noteIds: [UNKNOWN_ID], folded: true }, 404, 'NOTE_NOT_FOUND', false));
  });
});
