import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { DEFAULT_WINDOWS, LibrarySearch, ftsQuery } from '../../src/server/domain/library/librarySearch';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';

describe('GET /search', function () {
  this.timeout(60_000);
  let t: TestBridge;
  let manual: string;
  before(async () => {
    t = await startBridge();
    manual = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(manual);
  });
  after(() => t.stop());

  const search = (q: Record<string, string | number>) => t.client.call('GET /search', { query: q });

  it('a new card is found by the very next request (no indexing delay)', async () => {
    const set = await t.client.createStudySet('Hilbert bases and toric ideals');
    const r = await t.client.search('hilbert toric', { scope: 'notes' });
    assert.deepEqual(
      r.notes.map((n) => n.noteid),
      [set.rootNoteId],
    );
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
    assert.deepEqual(
      r.documents[0].pages,
      [...r.documents[0].pages].sort((a: number, b: number) => a - b),
    );
    const byName = await search({ q: '4ti2_manual', scope: 'documents' });
    assert.equal(byName.documents[0].bookmd5, manual);
  });

  it('scope=all covers sets, cards and documents; truncated when the window is too short', async () => {
    await t.client.createStudySet('Lattice basics');
    await t.client.createStudySet('Lattice programs');
    const all = await search({ q: 'lattice' });
    assert.equal(all.studySets.length, 2);
    assert.equal(all.notes.length, 2);
    assert.ok(all.documents.some((d) => d.bookmd5 === manual));
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
      const res = await t.client.raw('GET', '/search', { query: q });
      assert.equal(res.status, 422);
      assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
    });
  }
});

describe('GET /search: ranking, windows and honest counts', function () {
  this.timeout(120_000);
  let t: TestBridge;
  const COPIES = 30;
  const copies: string[] = [];
  let dense = '';
  let longBook = '';
  before(async () => {
    t = await startBridge();
    // Distinct small books (distinct bytes, so distinct bookmd5) that all contain one word.
    for (let i = 0; i < COPIES; i++) {
      const times = i === 7 ? 6 : 1;
      const r = await uploadPdf(t, `copy-${String(i).padStart(2, '0')}.pdf`, [
        `Copy ${i}: ${'ferromagnetic '.repeat(times)}domains and walls`,
        `Copy ${i} page two: ferromagnetic order`,
      ]);
      copies.push(r);
      if (i === 7) dense = r;
    }
    longBook = await uploadPdf(
      t,
      'long-book.pdf',
      Array.from({ length: 25 }, (_, i) => `Chapter ${i + 1}: the solenoid field`),
    );
    for (const id of [...copies, longBook]) await t.bridge.services.extraction.whenReady(id);
  });
  after(() => t.stop());

  const search = (q: Record<string, string | number>) => t.client.call('GET /search', { query: q });
  const newCard = async (topicid: string, title: string, text: string) =>
    (
      await t.client.call('POST /study-sets/{id}/notes', {
        params: { id: topicid },
        body: { title, text, confirm: true },
      })
    ).noteid as string;

  it('every matching document is counted: more documents than the limit → truncated:true; a wide enough limit lists them all', async () => {
    const all = await search({ q: 'ferromagnetic', scope: 'documents', limit: 100 });
    assert.equal(all.documents.length, COPIES);
    assert.deepEqual(new Set(all.documents.map((d) => d.bookmd5)), new Set(copies));
    assert.equal(all.truncated, false);
    assert.equal(all.scanned.pages, COPIES * 2, 'two matching pages per copy, every one examined');
    assert.equal(all.scanned.documents, COPIES + 1, 'every document name compared');
    for (const d of all.documents) {
      assert.deepEqual(d.pages, [1, 2]);
      assert.equal(d.matchingPages, 2);
      assert.equal(d.pagesTruncated, false);
    }
    const cut = await search({ q: 'ferromagnetic', scope: 'documents', limit: 20 });
    assert.equal(cut.documents.length, 20);
    assert.equal(cut.truncated, true);
    assert.deepEqual(cut.truncatedScopes, ['documents']);
  });

  it('documents are ranked by their best page: the book with the word six times on a page comes first', async () => {
    const r = await search({ q: 'ferromagnetic', scope: 'documents', limit: 5 });
    assert.equal(r.documents[0].bookmd5, dense);
    assert.equal(r.documents[0].filename, 'copy-07.pdf');
    assert.ok(r.documents[0].score > r.documents[1].score, `${r.documents[0].score} > ${r.documents[1].score}`);
    assert.match(r.documents[0].snippet ?? '', /\[ferromagnetic\] \[ferromagnetic\]/);
  });

  it('a document lists at most 20 matching pages, with pagesTruncated and the true count', async () => {
    const r = await search({ q: 'solenoid', scope: 'documents' });
    assert.equal(r.documents.length, 1);
    assert.equal(r.documents[0].bookmd5, longBook);
    assert.equal(r.documents[0].pages.length, 20);
    assert.deepEqual(
      r.documents[0].pages,
      [...r.documents[0].pages].sort((a: number, b: number) => a - b),
    );
    assert.equal(r.documents[0].matchingPages, 25);
    assert.equal(r.documents[0].pagesTruncated, true);
    assert.equal(r.truncated, true, 'a cut page list is a cut');
    assert.equal(r.scanned.pages, 25);
  });

  it('a page window that cuts answers truncated:true with what it scanned', async () => {
    const narrow = new LibrarySearch(t.bridge.services.store, textOf(t), { ...DEFAULT_WINDOWS, pages: 25 });
    const r = await narrow.search('ferromagnetic', 'documents', 100);
    assert.equal(r.scanned.pages, 25);
    assert.equal(r.truncated, true);
    assert.ok(r.documents.length < COPIES, `${r.documents.length} of ${COPIES} books seen through the window`);
  });

  it('cards are ranked by relevance, not insertion order', async () => {
    const set = await t.client.createStudySet('Ranking');
    const once = await newCard(
      set.topicid,
      'Notes on groups',
      'A short remark that mentions a quaternion once among many other words about rotations and spaces.',
    );
    const thrice = await newCard(set.topicid, 'Quaternion', 'quaternion multiplication: quaternion norms');
    const twice = await newCard(set.topicid, 'Rotations', 'A quaternion rotates; the unit quaternion group.');
    const r = await search({ q: 'quaternion', scope: 'notes' });
    assert.deepEqual(
      r.notes.map((n) => n.noteid),
      [thrice, twice, once],
    );
    assert.ok(r.notes[0].score > r.notes[1].score && r.notes[1].score > r.notes[2].score);
    assert.match(r.notes[2].snippet, /\[quaternion\]/);
    assert.deepEqual(r.scanned, { notes: 3, studySets: 0, documents: 0, pages: 0 });
    assert.equal(r.truncated, false);
  });

  it('an edited card is found by its new words at the very next request, and no longer by its old ones', async () => {
    const set = await t.client.createStudySet('Edits');
    const id = await newCard(set.topicid, 'Torsion', 'body text');
    assert.deepEqual(
      (await search({ q: 'torsion', scope: 'notes' })).notes.map((n) => n.noteid),
      [id],
    );
    await t.client.request('POST', `/notes/${id}/title`, {
      body: { text: 'Curvature', expectedPrefix: 'Torsion', confirm: true },
    });
    assert.deepEqual(
      (await search({ q: 'curvature', scope: 'notes' })).notes.map((n) => n.noteid),
      [id],
    );
    assert.deepEqual((await search({ q: 'torsion', scope: 'notes' })).notes, []);
  });

  it('the card window is read newest first: a new card is inside it even when the window cuts', async () => {
    const set = await t.client.createStudySet('Window');
    for (let i = 0; i < 5; i++) await newCard(set.topicid, `Spinor ${i}`, 'spinor');
    const newest = await newCard(set.topicid, 'Spinor newest', 'spinor');
    const narrow = new LibrarySearch(t.bridge.services.store, textOf(t), { ...DEFAULT_WINDOWS, notes: 3 });
    const r = await narrow.search('spinor', 'notes', 20);
    assert.equal(r.scanned.notes, 3);
    assert.equal(r.notes.length, 3);
    assert.equal(r.truncated, true);
    assert.deepEqual(r.truncatedScopes, ['notes']);
    assert.ok(r.notes.some((n) => n.noteid === newest));
    const full = await search({ q: 'spinor', scope: 'notes', limit: 6 });
    assert.equal(full.notes.length, 6);
    assert.equal(full.truncated, false);
    const short = await search({ q: 'spinor', scope: 'notes', limit: 5 });
    assert.equal(short.truncated, true, 'the limit cut one card');
  });

  it('study sets: an exact title first, then titles starting with the words; scanned = sets compared', async () => {
    await t.client.createStudySet('Advanced topology');
    await t.client.createStudySet('Topology');
    await t.client.createStudySet('Topology exercises');
    const r = await search({ q: 'topology', scope: 'studysets' });
    assert.deepEqual(
      r.studySets.map((s) => s.title),
      ['Topology', 'Topology exercises', 'Advanced topology'],
    );
    const sets = (await t.client.listStudySets()).length;
    assert.equal(r.scanned.studySets, sets);
  });

  for (const limit of ['abc', '2.5', '-1']) {
    it(`limit=${limit} → 422 INVALID_INPUT, nothing searched`, async () => {
      const res = await t.client.raw('GET', '/search', { query: { q: 'x', limit } });
      assert.equal(res.status, 422);
      assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
    });
  }
});

/** The bridge's document text (its book index and page texts), for a LibrarySearch with other windows. */
const textOf = (t: TestBridge) => ({
  index: t.bridge.services.bookIndex,
  pageTexts: t.bridge.services.pages.pageTexts.bind(t.bridge.services.pages),
});

/** A small PDF with one line of text per page, uploaded; returns its bookmd5. */
async function uploadPdf(t: TestBridge, filename: string, lines: string[]): Promise<string> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const line of lines) pdf.addPage([595, 842]).drawText(line, { x: 40, y: 760, size: 11, font });
  const r = await t.client.call('POST /library/documents/upload', {
    bytes: Buffer.from(await pdf.save()),
    query: { filename, confirm: '1' },
  });
  return r.bookmd5;
}
