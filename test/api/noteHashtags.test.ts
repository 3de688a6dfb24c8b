import assert from 'node:assert/strict';
import { normaliseHashtag, parseHashtags } from '../../src/server/domain/cards/noteHashtags';
import type { RouteResponse } from '../../src/server/api/http/routeTable';
import type { searchResponse } from '../../src/server/api/routes/search';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { UNKNOWN_ID, card, ids201, newSet, operations, post, read, refused } from './noteEditsFixture';

type SearchResult = RouteResponse<typeof searchResponse>;

const sorted = (a: string[]) => [...a].sort();

describe('normaliseHashtag (pure)', () => {
  for (const [raw, want] of [
    ['Math/Algebra', 'Math/Algebra'],
    ['#Math/Algebra', 'Math/Algebra'],
    ['  #exam  ', 'exam'],
    ['v1.2/release-notes/_draft', 'v1.2/release-notes/_draft'],
    ['Ünïcode/straße/数学', 'Ünïcode/straße/数学'],
    ['', null],
    ['#', null],
    ['##double', null],
    ['a//b', null],
    ['/a', null],
    ['a/', null],
    ['two words', null],
    ['a/b c', null],
    ['-dash-first', null],
    ['a,b', null],
    ['x'.repeat(201), null],
  ] as const) {
    it(`${JSON.stringify(raw).slice(0, 30)} → ${JSON.stringify(want)}`, () =>
      assert.equal(normaliseHashtag(raw), want));
  }
  it('a 200-character path is the longest accepted', () =>
    assert.equal(normaliseHashtag('x'.repeat(200)), 'x'.repeat(200)));
  it('parseHashtags drops case-insensitive duplicates, keeping the first spelling, and names every invalid one', () => {
    assert.deepEqual(parseHashtags(['#Exam', 'exam', 'EXAM/x', 'b']), ['Exam', 'EXAM/x', 'b']);
    assert.throws(
      () => parseHashtags(['ok', 'a b', '']),
      (e: any) =>
        e.code === 'INVALID_HASHTAG' &&
        e.status === 422 &&
        JSON.stringify(e.details.invalid) === JSON.stringify(['a b', '']),
    );
  });
});

describe('POST /notes/hashtags', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let setId: string;
  before(async () => {
    t = await startBridge();
    setId = (await newSet(t, 'Algebra notes')).topicid;
  });
  after(() => t.stop());

  const edit = (body: Record<string, unknown>, as?: 'agent' | 'person') => post(t, '/notes/hashtags', body, as);

  it('add: stored as full paths without "#"; a second card adding another spelling gets the set\'s first spelling; batch-get reads them back; one operation', async () => {
    const a = await card(t, setId, { title: 'Groups' });
    const b = await card(t, setId, { title: 'Rings' });
    const r1 = await edit({ noteIds: [a], operation: 'add', hashtags: ['#Math/Algebra'] });
    assert.deepEqual(r1, {
      bridgeApiVersion: r1.bridgeApiVersion,
      persisted: true,
      operation: 'add',
      results: [{ noteid: a, hashtags: ['Math/Algebra'] }],
      changed: 1,
    });

    const opsBefore = operations(t).length;
    const r2 = await edit({ noteIds: [a, b], operation: 'add', hashtags: ['math/algebra', 'Exam', 'EXAM'] }, 'person');
    assert.equal(r2.persisted, true);
    assert.equal(r2.changed, 2);
    const cards = await read(t, a, b);
    assert.deepEqual(sorted(cards[a].hashtags), ['Exam', 'Math/Algebra']);
    assert.deepEqual(
      sorted(cards[b].hashtags),
      ['Exam', 'Math/Algebra'],
      'math/algebra took the first spelling already in the set',
    );
    assert.deepEqual(cards[b].hashtagPaths.map((p: any) => [p.path, p.ancestors]).sort(), [
      ['Exam', []],
      ['Math/Algebra', ['Math']],
    ]);
    const ops = operations(t);
    assert.equal(ops.length, opsBefore + 1, 'one undo group for the batch');
    assert.deepEqual(
      [ops.at(-1)!.kind, ops.at(-1)!.actor, ops.at(-1)!.topicid, sorted(ops.at(-1)!.noteIds)],
      ['hashtags', 'user', setId, sorted([a, b])],
    );
  });

  it('add of a tag a card already has in another case changes nothing and writes nothing (no operation)', async () => {
    const a = await card(t, setId, { title: 'Fields' });
    await edit({ noteIds: [a], operation: 'add', hashtags: ['Topology'] });
    const before = storeDigest(t.bridge.services.store);
    const res = await edit({ noteIds: [a], operation: 'add', hashtags: ['TOPOLOGY', '#topology'] });
    assert.equal(res.changed, 0);
    assert.deepEqual(res.results, [{ noteid: a, hashtags: ['Topology'] }]);
    assert.equal(storeDigest(t.bridge.services.store), before);
  });

  it('a new tag is searchable by the very next request', async () => {
    const a = await card(t, setId, { title: 'Plain card' });
    await edit({ noteIds: [a], operation: 'add', hashtags: ['Zygomorphic'] });
    const hits = await t.client.request<SearchResult>('GET', '/search', {
      query: { q: 'zygomorphic', scope: 'notes' },
    });
    assert.ok(JSON.stringify(hits).includes(a));
  });

  it('remove: exact full path ignoring case by default; includeDescendants also removes the paths below it', async () => {
    const a = await card(t, setId, { title: 'Tagged' });
    await edit({
      noteIds: [a],
      operation: 'add',
      hashtags: ['Calc', 'Calc/Limits', 'Calc/Limits/Epsilon', 'Calculus', 'Other'],
    });
    const r1 = await edit({ noteIds: [a], operation: 'remove', hashtags: ['calc/limits'] });
    assert.equal(r1.changed, 1);
    assert.deepEqual(sorted((await read(t, a))[a].hashtags), ['Calc', 'Calc/Limits/Epsilon', 'Calculus', 'Other']);
    await edit({ noteIds: [a], operation: 'remove', hashtags: ['#CALC'], includeDescendants: true });
    assert.deepEqual(sorted((await read(t, a))[a].hashtags), ['Calculus', 'Other'], 'Calculus is not below Calc/');
  });

  it('remove of a tag the card does not have: changed 0', async () => {
    const a = await card(t, setId, { title: 'Untagged' });
    const res = await edit({ noteIds: [a], operation: 'remove', hashtags: ['Nope'] });
    assert.deepEqual([res.persisted, res.changed, res.results], [true, 0, [{ noteid: a, hashtags: [] }]]);
  });

  it('replace: the tags become exactly the list (set spelling kept where another card has it); [] clears', async () => {
    const a = await card(t, setId, { title: 'Replace me' });
    const other = await card(t, setId, { title: 'Holder' });
    await edit({ noteIds: [other], operation: 'add', hashtags: ['Linear/Maps'] });
    await edit({ noteIds: [a], operation: 'add', hashtags: ['Old', 'Solo'] });
    const res = await edit({ noteIds: [a], operation: 'replace', hashtags: ['linear/maps', 'SOLO', 'New'] });
    assert.equal(res.changed, 1);
    assert.deepEqual(
      sorted((await read(t, a))[a].hashtags),
      ['Linear/Maps', 'New', 'SOLO'],
      'a tag only this card had is re-spelled by replace',
    );
    await edit({ noteIds: [a], operation: 'replace', hashtags: [] });
    assert.deepEqual((await read(t, a))[a].hashtags, []);
    assert.deepEqual((await read(t, other))[other].hashtags, ['Linear/Maps'], 'other cards untouched');
  });

  it('cards of two sets in one batch: each set keeps its own spelling and gets its own operation row', async () => {
    const other = (await newSet(t, 'Second set')).topicid;
    const a = await card(t, setId, { title: 'In set 1' });
    const b = await card(t, other, { title: 'In set 2' });
    const c = await card(t, other, { title: 'Speller' });
    await edit({ noteIds: [c], operation: 'add', hashtags: ['physics'] });
    const opsBefore = operations(t).length;
    await edit({ noteIds: [a, b], operation: 'add', hashtags: ['PHYSICS'] });
    const cards = await read(t, a, b);
    assert.deepEqual([cards[a].hashtags, cards[b].hashtags], [['PHYSICS'], ['physics']]);
    const ops = operations(t).slice(opsBefore);
    assert.deepEqual(
      ops.map((o) => [o.topicid, o.noteIds]).sort(),
      [
        [setId, [a]],
        [other, [b]],
      ].sort(),
    );
  });

  it('dry-run (no confirm): 422 CONFIRM_REQUIRED with wouldChange {noteid, before, after}; the store is byte-identical', async () => {
    const a = await card(t, setId, { title: 'Preview' });
    await edit({ noteIds: [a], operation: 'add', hashtags: ['Keep'] });
    const err = await refused(
      t,
      '/notes/hashtags',
      { noteIds: [a], operation: 'add', hashtags: ['Fresh'] },
      422,
      'CONFIRM_REQUIRED',
      false,
    );
    assert.equal(err.details.dryRun, true);
    assert.deepEqual(err.details.wouldChange, [{ noteid: a, before: ['Keep'], after: ['Keep', 'Fresh'] }]);
    assert.deepEqual((await read(t, a))[a].hashtags, ['Keep']);
  });

  it('unknown body fields are listed in ignoredFields', async () => {
    const a = await card(t, setId, { title: 'Extras' });
    const res = await edit({ noteIds: [a], operation: 'add', hashtags: ['x'], color: 'red' });
    assert.deepEqual(res.ignoredFields, ['color']);
  });

  describe('refusals (nothing written)', () => {
    let a: string;
    before(async () => {
      a = await card(t, setId, { title: 'Refusal target' });
      await edit({ noteIds: [a], operation: 'add', hashtags: ['Present'] });
    });

    it('an invalid hashtag → 422 INVALID_HASHTAG naming every invalid one', async () => {
      const err = await refused(
        t,
        '/notes/hashtags',
        { noteIds: [a], operation: 'add', hashtags: ['good', 'two words', 'a//b'] },
        422,
        'INVALID_HASHTAG',
      );
      assert.deepEqual(err.details.invalid, ['two words', 'a//b']);
      assert.equal(typeof err.details.rule, 'string');
    });
    it('the dry-run refuses invalid hashtags too', () =>
      refused(
        t,
        '/notes/hashtags',
        { noteIds: [a], operation: 'add', hashtags: ['#'] },
        422,
        'INVALID_HASHTAG',
        false,
      ));
    for (const op of ['add', 'replace']) {
      it(`includeDescendants with ${op} → 422 INVALID_INPUT`, () =>
        refused(
          t,
          '/notes/hashtags',
          { noteIds: [a], operation: op, hashtags: ['x'], includeDescendants: true },
          422,
          'INVALID_INPUT',
        ));
    }
    it('includeDescendants:false with add is refused as well (only valid with remove)', () =>
      refused(
        t,
        '/notes/hashtags',
        { noteIds: [a], operation: 'add', hashtags: ['x'], includeDescendants: false },
        422,
        'INVALID_INPUT',
      ));
    it('add with an empty list → 422', () =>
      refused(t, '/notes/hashtags', { noteIds: [a], operation: 'add', hashtags: [] }, 422, 'INVALID_INPUT'));
    it('an unknown operation → 422', () =>
      refused(t, '/notes/hashtags', { noteIds: [a], operation: 'toggle', hashtags: ['x'] }, 422, 'INVALID_INPUT'));
    it('201 cards → 422, nothing written (not even the known card)', async () => {
      const err = await refused(
        t,
        '/notes/hashtags',
        { noteIds: ids201(a), operation: 'add', hashtags: ['x'] },
        422,
        'INVALID_INPUT',
      );
      assert.match(err.message, /200/);
    });
    it('101 hashtags → 422', () =>
      refused(
        t,
        '/notes/hashtags',
        { noteIds: [a], operation: 'add', hashtags: Array.from({ length: 101 }, (_, i) => `t${i}`) },
        422,
        'INVALID_INPUT',
      ));
    it('an unknown card in the batch → 404 NOTE_NOT_FOUND naming it; the known card keeps its tags', async () => {
      const err = await refused(
        t,
        '/notes/hashtags',
        { noteIds: [a, UNKNOWN_ID], operation: 'add', hashtags: ['x'] },
        404,
        'NOTE_NOT_FOUND',
      );
      assert.deepEqual(err.details.missing, [UNKNOWN_ID]);
      assert.deepEqual((await read(t, a))[a].hashtags, ['Present']);
    });
    it('a hidden card is invisible → 404 NOTE_NOT_FOUND', async () => {
      const h = await card(t, setId, { title: 'Hidden' });
      await t.bridge.services.store.write((tx) => tx.run('UPDATE notes SET hidden = 1 WHERE noteid = ?', [h]));
      await refused(t, '/notes/hashtags', { noteIds: [h], operation: 'add', hashtags: ['x'] }, 404, 'NOTE_NOT_FOUND');
    });
    it('a malformed id → 422', () =>
      refused(
        t,
        '/notes/hashtags',
        { noteIds: ['not-a-uuid'], operation: 'add', hashtags: ['x'] },
        422,
        'INVALID_INPUT',
      ));
  });
});
