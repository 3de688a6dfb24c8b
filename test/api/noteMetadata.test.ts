import assert from 'node:assert/strict';
import { confirmMetadata } from '../../src/server/domain/cards/noteMetadata';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { UNKNOWN_ID, card, ids201, newSet, operations, post, read, refused, treeNodes } from './noteEditsFixture';

describe('POST /notes/metadata', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  before(async () => {
    t = await startBridge();
    setId = (await newSet(t, 'Palette set')).topicid;
  });
  after(() => t.stop());

  it('sets colorIndex and fillIndex on several cards; tree and batch-get read them back; one operation', async () => {
    const a = await card(t, setId, { title: 'A' });
    const b = await card(t, setId, { title: 'B', colorIndex: 1, fillIndex: 0 });
    const opsBefore = operations(t).length;
    const res = await post(t, '/notes/metadata', { noteIds: [a, b], patch: { colorIndex: 15, fillIndex: -1 } });
    assert.equal(res.persisted, true);
    assert.equal(res.changed, 2);
    assert.deepEqual(res.results, [
      { noteid: a, colorIndex: 15, fillIndex: -1 },
      { noteid: b, colorIndex: 15, fillIndex: -1 },
    ]);
    const cards = await read(t, a, b);
    assert.deepEqual(
      [cards[a].metadata, cards[b].metadata],
      [
        { colorIndex: 15, fillIndex: -1 },
        { colorIndex: 15, fillIndex: -1 },
      ],
    );
    const nodes = await treeNodes(t, setId);
    assert.deepEqual(
      [nodes[a].colorIndex, nodes[a].fillIndex, nodes[b].colorIndex, nodes[b].fillIndex],
      [15, -1, 15, -1],
    );
    const ops = operations(t);
    assert.equal(ops.length, opsBefore + 1);
    assert.deepEqual([ops.at(-1)!.kind, ops.at(-1)!.topicid, ops.at(-1)!.noteIds], ['metadata', setId, [a, b]]);
  });

  it('a patch with one key keeps the other value', async () => {
    const a = await card(t, setId, { title: 'Partial', colorIndex: 4, fillIndex: 2 });
    await post(t, '/notes/metadata', { noteIds: [a], patch: { fillIndex: 0 } });
    assert.deepEqual((await read(t, a))[a].metadata, { colorIndex: 4, fillIndex: 0 });
    await post(t, '/notes/metadata', { noteIds: [a], patch: { colorIndex: 0 } });
    assert.deepEqual(
      (await read(t, a))[a].metadata,
      { colorIndex: 0, fillIndex: 0 },
      'colorIndex 0 and fillIndex 0 are values, not "unset"',
    );
  });

  it('one key over cards whose other values differ: each keeps its own, an unchanged card is not stamped', async () => {
    const a = await card(t, setId, { title: 'Mixed A', colorIndex: 1, fillIndex: 2 });
    const b = await card(t, setId, { title: 'Mixed B', colorIndex: 9 });
    const c = await card(t, setId, { title: 'Mixed C', colorIndex: 5, fillIndex: -1 });
    const stampOf = async (id: string) => (await read(t, id))[id].modifiedAt;
    const cBefore = await stampOf(c);
    const res = await post(t, '/notes/metadata', { noteIds: [c, a, b, a], patch: { colorIndex: 5 } });
    assert.equal(res.changed, 2);
    assert.deepEqual(res.results, [
      { noteid: c, colorIndex: 5, fillIndex: -1 },
      { noteid: a, colorIndex: 5, fillIndex: 2 },
      { noteid: b, colorIndex: 5, fillIndex: null },
    ]);
    assert.equal(await stampOf(c), cBefore, 'the card already at the value is not rewritten');
    const res2 = await post(t, '/notes/metadata', { noteIds: [a, b, c], patch: { fillIndex: 1 } });
    assert.deepEqual(
      res2.results.map((r: any) => [r.colorIndex, r.fillIndex]),
      [
        [5, 1],
        [5, 1],
        [5, 1],
      ],
    );
  });

  it('the same values again: persisted, changed 0, nothing written', async () => {
    const a = await card(t, setId, { title: 'Same', colorIndex: 7 });
    const before = storeDigest(t.bridge.services.store);
    const res = await post(t, '/notes/metadata', { noteIds: [a, a], patch: { colorIndex: 7 } });
    assert.deepEqual(
      [res.persisted, res.changed, res.results],
      [true, 0, [{ noteid: a, colorIndex: 7, fillIndex: null }]],
    );
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('cards of two sets: one operation per set; the person is recorded as actor user', async () => {
    const other = (await newSet(t, 'Other palette set')).topicid;
    const a = await card(t, setId, { title: 'Here' });
    const b = await card(t, other, { title: 'There' });
    const opsBefore = operations(t).length;
    await post(t, '/notes/metadata', { noteIds: [a, b], patch: { colorIndex: 9 } }, 'person');
    const ops = operations(t).slice(opsBefore);
    assert.deepEqual(
      ops.map((o) => [o.topicid, o.noteIds, o.actor]).sort(),
      [
        [setId, [a], 'user'],
        [other, [b], 'user'],
      ].sort(),
    );
    const cards = await read(t, a, b);
    assert.deepEqual([cards[a].metadata.colorIndex, cards[b].metadata.colorIndex], [9, 9]);
  });

  it('dry-run (no confirm): 422 with wouldChange {before, after}; store byte-identical', async () => {
    const a = await card(t, setId, { title: 'Preview', colorIndex: 2 });
    const b = await card(t, setId, { title: 'Already', colorIndex: 5 });
    const err = await refused(
      t,
      '/notes/metadata',
      { noteIds: [a, b], patch: { colorIndex: 5 } },
      422,
      'CONFIRM_REQUIRED',
      false,
    );
    assert.deepEqual(err.details.wouldChange, [
      { noteid: a, before: { colorIndex: 2, fillIndex: null }, after: { colorIndex: 5, fillIndex: null } },
    ]);
    assert.deepEqual(err.details.unchanged, [b]);
    assert.equal((await read(t, a))[a].metadata.colorIndex, 2);
  });

  it('unknown fields → ignoredFields', async () => {
    const a = await card(t, setId, { title: 'Extras' });
    const res = await post(t, '/notes/metadata', { noteIds: [a], patch: { colorIndex: 1 }, folded: true });
    assert.deepEqual(res.ignoredFields, ['folded']);
  });

  it('the read-back: a stored value that disagrees with the plan is 500 SAVE_FAILED (retryable), never persisted', async () => {
    const a = await card(t, setId, { title: 'Read-back', colorIndex: 3 });
    const store = t.bridge.services.store;
    assert.doesNotThrow(() => confirmMetadata(store, [{ noteid: a, after: { colorIndex: 3, fillIndex: null } }]));
    assert.throws(
      () => confirmMetadata(store, [{ noteid: a, after: { colorIndex: 4, fillIndex: null } }]),
      (e: any) =>
        e.code === 'SAVE_FAILED' &&
        e.status === 500 &&
        e.retryable === true &&
        e.details.disagree[0].noteid === a &&
        e.details.disagree[0].stored.colorIndex === 3,
    );
  });

  describe('refusals (nothing written)', () => {
    let a: string;
    before(async () => (a = await card(t, setId, { title: 'Target', colorIndex: 1, fillIndex: 1 })));
    for (const [label, patch] of [
      ['an empty patch', {}],
      ['colorIndex 16', { colorIndex: 16 }],
      ['colorIndex -1', { colorIndex: -1 }],
      ['fillIndex -2', { fillIndex: -2 }],
      ['fillIndex 3', { fillIndex: 3 }],
      ['fillIndex 1.5', { fillIndex: 1.5 }],
      ['colorIndex as a string', { colorIndex: '3' }],
    ] as const) {
      it(`${label} → 422 INVALID_INPUT`, () =>
        refused(t, '/notes/metadata', { noteIds: [a], patch }, 422, 'INVALID_INPUT'));
    }
    it('a missing patch → 422', () => refused(t, '/notes/metadata', { noteIds: [a] }, 422, 'INVALID_INPUT'));
    it('201 cards → 422, nothing written', () =>
      refused(t, '/notes/metadata', { noteIds: ids201(a), patch: { colorIndex: 2 } }, 422, 'INVALID_INPUT'));
    it('no cards → 422', () =>
      refused(t, '/notes/metadata', { noteIds: [], patch: { colorIndex: 2 } }, 422, 'INVALID_INPUT'));
    it('an unknown card → 404 NOTE_NOT_FOUND, the known one unchanged', async () => {
      await refused(
        t,
        '/notes/metadata',
        { noteIds: [a, UNKNOWN_ID], patch: { colorIndex: 2 } },
        404,
        'NOTE_NOT_FOUND',
      );
      assert.deepEqual((await read(t, a))[a].metadata, { colorIndex: 1, fillIndex: 1 });
    });
    it('a hidden card → 404 NOTE_NOT_FOUND (also in the dry-run)', async () => {
      const h = await card(t, setId, { title: 'Hidden' });
      await t.bridge.services.store.write((tx) => tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [h]));
      await refused(t, '/notes/metadata', { noteIds: [h], patch: { colorIndex: 2 } }, 404, 'NOTE_NOT_FOUND');
      await refused(t, '/notes/metadata', { noteIds: [h], patch: { colorIndex: 2 } }, 404, 'NOTE_NOT_FOUND', false);
    });
  });
});
