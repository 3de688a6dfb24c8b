import assert from 'node:assert/strict';
import { ftsQuery } from '../../src/server/library/librarySearch';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';

describe('GET /search', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let manual: string;
  before(async () => {
    t = await startBridge();
    manual = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    await t.bridge.services.documents.whenReady(manual);
  });
  after(() => t.stop());

  const search = (q: Record<string, string | number>) => t.client.request<any>('GET', '/search', { query: q });

  it('a new card is found by the very next request (no indexing delay)', async () => {
    const set = await t.client.createStudySet('Hilbert bases and toric ideals');
    const r = await t.client.search('hilbert toric', { scope: 'notes' });
    assert.deepEqual(r.notes.map((n: any) => n.noteid), [set.rootNoteId]);
    assert.equal(r.notes[0].studySetTitle, 'Hilbert bases and toric ideals');
    assert.match(r.notes[0].snippet, /\[Hilbert\]/);
    assert.deepEqual(r.studySets, [], 'scope=notes only');
  });

  it('prefix matching, and every word must match', async () => {
    assert.equal((await search({ q: 'hilb', scope: 'notes' })).notes.length, 1);
    assert.equal((await search({ q: 'hilbert zebra', scope: 'notes' })).notes.length, 0);
  });

  it('scope=documents finds a book by its text even in no study set, with the pages', async () => {
    const r = await search({ q: 'Graver basis', scope: 'documents' });
    assert.equal(r.documents.length, 1);
    assert.equal(r.documents[0].bookmd5, manual);
    assert.ok(r.documents[0].pages.length >= 2);
    assert.deepEqual(r.documents[0].pages, [...r.documents[0].pages].sort((a: number, b: number) => a - b));
    const byName = await search({ q: '4ti2_manual', scope: 'documents' });
    assert.equal(byName.documents[0].bookmd5, manual);
  });

  it('scope=all covers sets, cards and documents; truncated when the window is too short', async () => {
    await t.client.createStudySet('Lattice basics');
    await t.client.createStudySet('Lattice programs');
    const all = await search({ q: 'lattice' });
    assert.equal(all.studySets.length, 2);
    assert.equal(all.notes.length, 2);
    assert.ok(all.documents.some((d: any) => d.bookmd5 === manual));
    const short = await search({ q: 'lattice', scope: 'studysets', limit: 1 });
    assert.equal(short.studySets.length, 1);
    assert.equal(short.truncated, true);
  });

  it('FTS operators in the words are taken literally', async () => {
    assert.equal(ftsQuery('a OR b NEAR "c" -d'), 'body:a* body:or* body:b* body:near* body:c* body:d*');
    assert.equal(ftsQuery('!!!'), undefined);
    const r = await search({ q: '"unbalanced' });
    assert.ok(Array.isArray(r.notes));
  });

  for (const [label, q] of [
    ['missing q', {}],
    ['empty q', { q: '  ' }],
    ['unknown scope', { q: 'x', scope: 'everything' }],
    ['limit 0', { q: 'x', limit: 0 }],
    ['limit 101', { q: 'x', limit: 101 }],
  ] as const) {
    it(`bad input (${label}) → 422 INVALID_INPUT`, async () => {
      const res = await t.client.raw('GET', '/search', { query: q as Record<string, string> });
      assert.equal(res.status, 422);
      assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
    });
  }
});
