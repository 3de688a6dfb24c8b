import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BookTextIndex } from '../../src/server/ground/search/bookTextIndex';
import { warmBookIndex } from '../../src/server/ground/search/bookIndexWarmup';
import {
  CorruptIndexError,
  HEADER_BYTES,
  decodeBloom,
  decodeBody,
  decodeHeader,
  encodeBook,
} from '../../src/server/ground/search/indexFormat';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';

const md5 = (i: number) => i.toString(16).padStart(32, '0');
const pagesOf = (texts: string[]) => texts.map((text, i) => ({ page: i + 1, text }));

describe('book text index: format and queries', function () {
  let dir: string;
  let books: Map<string, Array<{ page: number; text: string }>>;
  let rebuilt: string[];
  const index = (cacheBytes?: number) =>
    new BookTextIndex({
      dir,
      cacheBytes,
      pageTexts: async (id) => {
        rebuilt.push(id);
        return books.get(id)!;
      },
    });
  beforeEach(() => {
    dir = tempDir('sb-textindex-');
    books = new Map();
    rebuilt = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a file round-trips: every byte checked, a flipped byte is detected', () => {
    const bytes = encodeBook(pagesOf(['Zebra école zebra', '', 'naïve Über 42']));
    const h = decodeHeader(bytes);
    assert.deepEqual([h.pageCount, h.totalTokens], [3, 6]);
    const body = decodeBody(h, bytes.subarray(HEADER_BYTES + h.bloomBytes));
    assert.deepEqual([...body.pageNo], [1, 2, 3]);
    assert.deepEqual([...body.pageLen], [3, 0, 3]);
    const terms = Array.from({ length: h.termCount }, (_, i) =>
      body.terms.subarray(body.termOff[i], body.termOff[i + 1]).toString(),
    );
    assert.deepEqual(terms, ['42', 'ecole', 'naive', 'uber', 'zebra'], 'folded (accents off, lower case), sorted');
    for (const at of [3, HEADER_BYTES + 1, bytes.length - 1]) {
      const bad = Buffer.from(bytes);
      bad[at] ^= 0x40;
      assert.throws(
        () => {
          const hh = decodeHeader(bad);
          decodeBloom(hh, bad.subarray(HEADER_BYTES, HEADER_BYTES + hh.bloomBytes));
          decodeBody(hh, bad.subarray(HEADER_BYTES + hh.bloomBytes));
        },
        CorruptIndexError,
        `byte ${at}`,
      );
    }
  });

  it('whole words rank by bm25, AND of every word, prefixes when whole words do not fill the window', async () => {
    books.set(
      md5(1),
      pagesOf(['magnet magnet magnet field', 'magnet field and more words here to be longer', 'field only']),
    );
    books.set(md5(2), pagesOf(['magnetic field', 'magnetism']));
    const ix = index();
    await ix.open([]);
    for (const [id, p] of books) await ix.indexBook(id, p);
    const order = [md5(2), md5(1)]; // newest first
    const both = await ix.search(['magnet', 'field'], order, 100);
    assert.deepEqual(
      both.hits.map((h) => `${h.bookmd5.slice(-1)}:${h.page}`),
      ['2:1', '1:2', '1:1'],
      'prefix fallback (magnet* field): book 2 page 1 too; newest book first, highest page first',
    );
    const ranked = [...both.hits].sort((a, b) => b.score - a.score);
    assert.deepEqual(
      ranked.map((h) => `${h.bookmd5.slice(-1)}:${h.page}`)[0],
      '1:1',
      'three hits on a short page rank first',
    );
    const whole = await ix.search(['magnet', 'field'], order, 1);
    assert.equal(whole.cut, true, 'whole words alone overflow a window of 1');
    assert.deepEqual(
      whole.hits.map((h) => `${h.bookmd5.slice(-1)}:${h.page}`),
      ['1:2'],
      'whole-word hits only, newest first',
    );
    assert.deepEqual((await ix.search(['magnet', 'zebra'], order, 100)).hits, [], 'every word must match');
    assert.deepEqual((await ix.search(['magne'], order, 100)).hits.length, 4, 'prefix: magnet, magnetic, magnetism');
    assert.equal(rebuilt.length, 0);
  });

  it('50 books: the window reads newest books first and says honestly when it cut', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids.push(md5(i + 1));
      books.set(
        md5(i + 1),
        pagesOf([`book ${i} entropy`, 'nothing', `entropy again ${i}`, i % 10 === 0 ? `rare${i} entropy` : 'filler']),
      );
    }
    const ix = index(64 * 1024);
    await ix.open([]);
    for (const id of ids) await ix.indexBook(id, books.get(id)!);
    const newest = [...ids].reverse();
    const all = await ix.search(['entropy'], newest, 1000);
    assert.equal(all.cut, false);
    assert.equal(all.hits.length, 50 * 2 + 5);
    const cut = await ix.search(['entropy'], newest, 25);
    assert.equal(cut.cut, true);
    assert.equal(cut.hits.length, 25);
    assert.equal(cut.hits[0].bookmd5, md5(50), 'the newest book is inside the window');
    assert.ok(
      cut.hits.every((h) => parseInt(h.bookmd5, 16) > 38),
      'only the newest books were read',
    );
    const rare = await ix.search(['rare20'], newest, 10);
    assert.deepEqual(
      rare.hits.map((h) => [h.bookmd5, h.page]),
      [[md5(21), 4]],
    );
    assert.ok(ix.memory().cachedBytes <= 64 * 1024, 'the LRU holds its byte budget');
    // A word on a few pages of every book: the book window stops the read, honestly.
    const fewBooks = await ix.search(['entropy'], newest, 1000, 10);
    assert.equal(fewBooks.cut, true);
    assert.deepEqual(
      [...new Set(fewBooks.hits.map((h) => h.bookmd5))],
      newest.slice(0, 10),
      'the 10 newest books, and no other',
    );
    assert.equal(fewBooks.hits.length, 10 * 2 + 1);
    const rareInWindow = await ix.search(['rare20'], newest, 10, 10);
    assert.equal(rareInWindow.cut, false, 'books the filter rules out do not count against the window');
    assert.deepEqual(
      rareInWindow.hits.map((h) => h.bookmd5),
      [md5(21)],
    );
  });

  it('restart keeps the results; a missing or damaged file is rebuilt from the page texts with the same answers; removeBook drops it', async () => {
    for (let i = 1; i <= 3; i++) books.set(md5(i), pagesOf([`alpha beta ${i}`, `gamma alpha`]));
    const ids = [...books.keys()];
    const first = index();
    await first.open([]);
    for (const id of ids) await first.indexBook(id, books.get(id)!);
    const before = await first.search(['alpha'], ids, 100);

    const again = index();
    await again.open(ids);
    assert.deepEqual(await again.search(['alpha'], ids, 100), before);
    assert.equal(rebuilt.length, 0, 'nothing rebuilt on a clean restart');

    unlinkSync(join(dir, `${md5(1)}.idx`));
    const body = join(dir, `${md5(2)}.idx`);
    const bytes = readFileSync(body);
    bytes[bytes.length - 2] ^= 0xff; // body damage: the filter still reads, the body does not
    writeFileSync(body, bytes);
    writeFileSync(join(dir, `${md5(9)}.idx`), 'orphan of a deleted book');
    const damaged = index();
    await damaged.open(ids);
    assert.ok(!existsSync(join(dir, `${md5(9)}.idx`)), 'files of books that are not ready are dropped');
    assert.deepEqual(await damaged.search(['alpha'], ids, 100), before, 'same answers after rebuild');
    assert.deepEqual(rebuilt.sort(), [md5(1), md5(2)]);
    assert.deepEqual(
      readdirSync(dir).sort(),
      ids.map((id) => `${id}.idx`),
    );

    damaged.removeBook(md5(3));
    assert.ok(!existsSync(join(dir, `${md5(3)}.idx`)));
    assert.deepEqual((await damaged.search(['alpha'], [md5(1), md5(2)], 100)).hits.length, 4);
    const unreadable = new BookTextIndex({ dir, pageTexts: async () => Promise.reject(new Error('PDF gone')) });
    await unreadable.open([md5(3)]);
    assert.deepEqual(
      await unreadable.search(['alpha'], [md5(3)], 100),
      { hits: [], cut: false, unsearched: [md5(3)] },
      'reported, not thrown',
    );
  });

  it("at a start, the newest books' bodies are read ahead of a search, within the byte budget; an abort stops it", async () => {
    for (let i = 1; i <= 4; i++) books.set(md5(i), pagesOf([`alpha beta ${i}`, `gamma alpha ${i}`]));
    const newest = [md5(4), md5(3), md5(2), md5(1)];
    const first = index();
    await first.open([]);
    for (const id of newest) await first.indexBook(id, books.get(id)!);
    const expected = await first.search(['alpha'], newest, 100);
    const bodyBytes = decodeHeader(readFileSync(join(dir, `${md5(1)}.idx`))).bodyBytes;

    const warm = index();
    await warm.open(newest);
    assert.equal(warm.memory().cachedBodies, 0, 'opening reads filters only');
    assert.equal(await warmBookIndex(warm, newest, new AbortController().signal), 4);
    assert.equal(warm.memory().cachedBodies, 4);
    const files = readdirSync(dir);
    for (const f of files) unlinkSync(join(dir, f)); // the search now can only answer from memory
    assert.deepEqual(await warm.search(['alpha'], newest, 100), expected, 'answered from the bodies read ahead');
    assert.equal(rebuilt.length, 0);

    for (const id of newest) await first.indexBook(id, books.get(id)!);
    const budget = index();
    await budget.open(newest);
    assert.equal(
      await warmBookIndex(budget, newest, new AbortController().signal, 2 * bodyBytes + 1),
      2,
      'stops at the budget',
    );
    const aborted = index();
    await aborted.open(newest);
    const stop = new AbortController();
    stop.abort();
    assert.equal(await warmBookIndex(aborted, newest, stop.signal), 0);
    assert.equal(aborted.memory().cachedBodies, 0);
  });
});

describe('GET /search over the book text index', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let manual: string;
  let cad: string;
  const search = (q: string) => t.client.call('GET /search', { query: { q, scope: 'documents' } });
  before(async () => {
    t = await startBridge({ dataDir: tempDir() });
    manual = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    cad = (await upload(t, 'CAD.pdf')).bookmd5;
    for (const id of [manual, cad]) await t.bridge.services.extraction.whenReady(id);
  });
  after(async () => {
    await t.stop();
    rmSync(t.dataDir, { recursive: true, force: true });
  });

  it('a ready book is searchable at once, and nothing of its text is in library.db', async () => {
    assert.ok(t.bridge.services.bookIndex.has(manual) && t.bridge.services.bookIndex.has(cad));
    const r = await search('Graver basis');
    assert.deepEqual(
      r.documents.map((d) => d.bookmd5),
      [manual],
    );
    assert.match(r.documents[0].snippet ?? '', /\[Graver\]/i);
    assert.equal(
      t.bridge.services.store.get(`SELECT name FROM sqlite_master WHERE name = 'pages_fts'`),
      undefined,
      'the old page index table is dropped (schema 9)',
    );
    assert.deepEqual(
      readdirSync(join(t.dataDir, 'cache', 'text-index')).sort(),
      [`${manual}.idx`, `${cad}.idx`].sort(),
    );
  });

  it('after a restart with one index file deleted and one damaged: the same answers, never a 500', async () => {
    const queries = ['Graver basis', 'hilb', 'markov', 'the'];
    const before = await Promise.all(queries.map(search));
    await t.bridge.close();
    const dir = join(t.dataDir, 'cache', 'text-index');
    unlinkSync(join(dir, `${manual}.idx`));
    const f = join(dir, `${cad}.idx`);
    const bytes = readFileSync(f);
    bytes[bytes.length - 5] ^= 0x55;
    writeFileSync(f, bytes);
    t = await startBridge({ dataDir: t.dataDir });
    const after = await Promise.all(queries.map(search));
    assert.deepEqual(after, before);
    assert.ok(existsSync(join(dir, `${manual}.idx`)), 'rebuilt');
  });

  it('deleting a document drops its index file and its hits', async () => {
    await t.client.request('POST', `/library/documents/${cad}/delete`, { body: { confirm: true } });
    assert.ok(!existsSync(join(t.dataDir, 'cache', 'text-index', `${cad}.idx`)));
    assert.equal(t.bridge.services.bookIndex.has(cad), false);
    const r = await search('the');
    assert.ok(r.documents.every((d) => d.bookmd5 !== cad));
  });
});
