import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import type { RouteAnswer } from '../../src/client/routeCalls';

describe('GET/POST /library/study-sets', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge()));
  after(() => t.stop());

  it('creates a set with one root card bearing its title, then lists it', async () => {
    const created = await t.client.createStudySet('  Number theory ');
    assert.equal(created.isStudySet, true);
    assert.equal(created.created, true);
    assert.match(created.topicid, /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    assert.equal(created.title, 'Number theory');
    assert.equal(created.noteCount, 1);
    assert.equal(created.documentCount, 0);
    assert.equal(created.mainDocument, null);
    const root = t.bridge.services.store.get<{ title: string; parent_id: null; topicid: string }>(
      'SELECT title, parent_id, topicid FROM notes WHERE noteid = ?',
      [created.rootNoteId!],
    );
    assert.deepEqual(root, { title: 'Number theory', parent_id: null, topicid: created.topicid });

    const listed = await t.client.listStudySets();
    assert.ok(listed.some((s) => s.topicid === created.topicid && s.title === 'Number theory' && s.isStudySet));
  });

  it('filters by query, case-insensitively', async () => {
    await t.client.createStudySet('Graph Theory');
    const hits = await t.client.listStudySets('graph');
    assert.deepEqual(
      hits.map((s) => s.title),
      ['Graph Theory'],
    );
    assert.deepEqual(await t.client.listStudySets('zzz-nothing'), []);
  });

  it('lists unknown body fields in ignoredFields', async () => {
    const res = await t.client.request<RouteAnswer<'POST /library/study-sets'>>('POST', '/library/study-sets', {
      body: { title: 'With extras', confirm: true, color: 'red' },
    });
    assert.deepEqual(res.ignoredFields, ['color']);
    assert.equal(res.isStudySet, true);
  });

  for (const [label, body] of [
    ['missing title', { confirm: true }],
    ['empty title', { title: '   ', confirm: true }],
    ['title not a string', { title: 42, confirm: true }],
    ['title too long', { title: 'x'.repeat(201), confirm: true }],
    ['confirm not a boolean', { title: 'x', confirm: 'yes' }],
  ] as const) {
    it(`bad input (${label}) → 422 INVALID_INPUT naming the field, nothing stored`, async () => {
      const before = storeDigest(t.bridge.services.store);
      const res = await t.client.raw('POST', '/library/study-sets', { body });
      assert.equal(res.status, 422);
      const err = res.json<any>().error;
      assert.equal(err.code, 'INVALID_INPUT');
      assert.ok(err.details.issues.length >= 1);
      assert.ok(['title', 'confirm'].includes(err.details.issues[0].path));
      assert.equal(storeDigest(t.bridge.services.store), before);
    });
  }

  it('a query that is too long → 422', async () => {
    const res = await t.client.raw('GET', '/library/study-sets', { query: { query: 'q'.repeat(201) } });
    assert.equal(res.status, 422);
    assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
  });
});

describe('search index', () => {
  it('a new card is in the full-text index in the same transaction (FTS4), found at once', async () => {
    const t = await startBridge();
    try {
      const set = await t.client.createStudySet('Eigenvalues and eigenvectors');
      const hits = t.bridge.services.store.all<{ noteid: string }>(
        `SELECT noteid FROM notes_fts WHERE notes_fts MATCH ?`,
        ['eigenvalues'],
      );
      assert.deepEqual(
        hits.map((h) => h.noteid),
        [set.rootNoteId],
      );
    } finally {
      await t.stop();
    }
  });
});
