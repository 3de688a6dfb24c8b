import { strict as assert } from 'node:assert';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { buildPagesFile, CacheUnreadable, packPage, parseTable } from '../../src/server/ground/cache/pageFile';
import { migratePagesToCache } from '../../src/server/ground/cache/pageMigration';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { upload } from './documentsFixture';
import { withoutAdditions, withoutRects } from '../helpers/anchorAnswers';

/** Answers of the page-reading routes for a book: what a rebuild must reproduce exactly. */
async function readingAnswers(t: TestBridge, id: string, pageCount: number) {
  const out: Record<string, unknown> = {};
  const get = async (path: string) => {
    const r = await t.client.raw('GET', path);
    assert.equal(r.status, 200, `${path}: ${r.text()}`);
    const { extraction: _e, ...body } = r.json<Record<string, unknown>>();
    return body;
  };
  for (let s = 1; s <= pageCount; s += 60)
    out[`pages ${s}`] = await get(`/documents/${id}/pages?start=${s}&end=${Math.min(pageCount, s + 59)}`);
  out.blocks = await get(`/documents/${id}/pages?start=5&end=6&blocks=1`);
  out.outline = await get(`/documents/${id}/outline`);
  out.toc = await get(`/documents/${id}/toc-candidates?start=1&end=20`);
  const loc = await t.client.raw('POST', `/documents/${id}/locate`, { body: { page: 5, text: 'Markov' } });
  assert.equal(loc.status, 200, loc.text());
  out.locate = loc.json();
  return out;
}

const bookDir = (t: TestBridge, id: string) => join(t.dataDir, 'cache', 'pages', id);
const pagesFile = (t: TestBridge, id: string) => join(bookDir(t, id), 'pages.pc');
/** Forget what memory holds, so the next read goes to the (damaged) files. */
const forget = (t: TestBridge) => t.bridge.services.pageCache.forgetMemory();
/** Reading answers, then the end of the rebuild they started (the compacted file is written after the pages are served). */
async function answersAfterRebuild(t: TestBridge, id: string, pageCount: number) {
  const answers = await readingAnswers(t, id, pageCount);
  await t.bridge.services.extraction.whenReady(id);
  return answers;
}

describe('page cache: files outside library.db, rebuilt from the PDF when lost or damaged', function () {
  this.timeout(180_000);
  let t: TestBridge;
  let manual: string;
  let cad: string;
  let expected: Record<string, unknown>;
  const dataDir = tempDir('sb-pagecache-');

  before(async () => {
    t = await startBridge({ dataDir, store: { idleCheckpointMs: 0 } });
    manual = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    cad = (await upload(t, 'CAD.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(manual);
    await t.bridge.services.extraction.whenReady(cad);
    expected = await readingAnswers(t, manual, 59);
  });
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a ready book is one compacted pages.pc (no segments) and library.db holds no page text', async () => {
    assert.deepEqual(readdirSync(bookDir(t, manual)).sort(), ['outline.pc', 'pages.pc']);
    const store = t.bridge.services.store;
    assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM pages')!.n, 0);
    assert.equal(
      store.get(`SELECT name FROM sqlite_master WHERE name = 'pages_fts'`),
      undefined,
      'no page index in library.db (migration 9 dropped it)',
    );
    assert.equal(
      store.get<{ o: string | null }>('SELECT outline_original AS o FROM documents WHERE bookmd5 = ?', [manual])!.o,
      null,
    );
    const row = store.get<{ extraction_state: string; extracted_pages: number }>(
      'SELECT extraction_state, extracted_pages FROM documents WHERE bookmd5 = ?',
      [manual],
    )!;
    assert.deepEqual(row, { extraction_state: 'ready', extracted_pages: 59 });
    const pages = expected['pages 1'] as { pages: Array<{ page: number; text: string }> };
    assert.equal(pages.pages.length, 59);
    assert.match(pages.pages[4].text, /Beginner’s guide/);
  });

  it('asymptote.pdf (196 pages) leaves library.db small', async () => {
    const asy = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(asy);
    await t.bridge.services.store.checkpoint();
    const dbBytes = statSync(join(t.dataDir, 'library.db')).size;
    const cacheBytes = statSync(pagesFile(t, asy)).size;
    assert.ok(dbBytes < 512 * 1024, `library.db is ${dbBytes} bytes`);
    assert.ok(cacheBytes > 200 * 1024, `pages.pc is ${cacheBytes} bytes`);
    const r = await t.client.request<{ pages: Array<{ text: string }> }>(
      'GET',
      `/documents/${asy}/pages?start=1&end=60`,
    );
    assert.equal(r.pages.length, 60);
    assert.ok(r.pages.filter((p) => p.text.length > 100).length > 40);
  });

  it('deleted pages.pc → the same requests answer identical pages (rebuilt from the PDF)', async () => {
    rmSync(pagesFile(t, manual));
    forget(t);
    assert.deepEqual(await answersAfterRebuild(t, manual, 59), expected);
    assert.ok(existsSync(pagesFile(t, manual)));
  });

  for (const [what, damage] of [
    ['a flipped byte in a page', (f: string) => flip(f, statSync(f).size - 500)],
    ['a flipped byte in the table', (f: string) => flip(f, 16 + 40 * 3 + 9)],
    ['a truncated file', (f: string) => truncateSync(f, statSync(f).size - 1)],
    ['a file cut inside its table', (f: string) => truncateSync(f, 100)],
    ['garbage', (f: string) => writeFileSync(f, 'not a cache file at all')],
  ] as const) {
    it(`corrupt pages.pc (${what}) → identical answers after the rebuild, never a 500`, async () => {
      damage(pagesFile(t, manual));
      forget(t);
      assert.deepEqual(await answersAfterRebuild(t, manual, 59), expected);
      assert.doesNotThrow(() => parseTable(readFileSync(pagesFile(t, manual)), statSync(pagesFile(t, manual)).size));
    });
  }

  it('a pages.pc of the earlier format (version 1: turned pages held upright boxes) → extracted again, identical answers', async () => {
    const file = pagesFile(t, manual);
    const b = readFileSync(file);
    b.writeUInt32LE(1, 4);
    writeFileSync(file, b);
    forget(t);
    assert.deepEqual(await answersAfterRebuild(t, manual, 59), expected);
    assert.ok(readFileSync(file).readUInt32LE(4) > 1, 'written again in the current format');
  });

  it('the whole cache folder deleted (outline too) → identical answers', async () => {
    rmSync(bookDir(t, manual), { recursive: true });
    forget(t);
    assert.deepEqual(await answersAfterRebuild(t, manual, 59), expected);
  });

  it('during a rebuild cards, card search and other documents keep working', async () => {
    rmSync(pagesFile(t, manual));
    forget(t);
    const rebuilding = answersAfterRebuild(t, manual, 59);
    const set = await t.client.request<{ topicid: string }>('POST', '/library/study-sets', {
      body: { title: 'During rebuild', confirm: true },
    });
    const card = await t.client.request<{ noteid: string }>('POST', `/study-sets/${set.topicid}/notes`, {
      body: { title: 'Zonotope', text: 'quasiperiodic tilings', confirm: true },
    });
    const found = await t.client.request<{ notes: Array<{ noteid: string }> }>(
      'GET',
      '/search?q=quasiperiodic&scope=notes',
    );
    assert.deepEqual(
      found.notes.map((n) => n.noteid),
      [card.noteid],
    );
    const other = await t.client.request<{ pages: Array<{ page: number; text: string }> }>(
      'GET',
      `/documents/${cad}/pages?start=1&end=7`,
    );
    assert.equal(other.pages.length, 7);
    assert.deepEqual(await rebuilding, expected);
  });

  it('a leftover temp file and a torn segment (a crash mid-write) are never read as pages', async () => {
    const dir = bookDir(t, manual);
    const good = readFileSync(pagesFile(t, manual));
    writeFileSync(join(dir, 'pages.pc.999.1.tmp'), good.subarray(0, good.length >> 1));
    writeFileSync(join(dir, 'seg-zzzzzzzz-000001.pc'), good.subarray(0, good.length - 7));
    forget(t);
    assert.deepEqual(await answersAfterRebuild(t, manual, 59), expected);
    assert.ok(!existsSync(join(dir, 'seg-zzzzzzzz-000001.pc')), 'the torn segment is dropped');
    rmSync(join(dir, 'pages.pc.999.1.tmp'));
    // Every prefix of a valid file is refused, as is any single flipped byte of its table.
    const file = buildPagesFile(
      [1, 2, 3].map((page) =>
        packPage({
          page,
          text: `page ${page}`,
          items: new Uint8Array(Buffer.from('[]')),
          blocks: null,
          width: 612,
          height: 792,
          ocr: 0,
        }),
      ),
    );
    for (let cut = 0; cut < file.length; cut++)
      assert.throws(() => parseTable(file.subarray(0, cut), cut), CacheUnreadable);
    for (let at = 0; at < 16 + 3 * 40; at++) {
      const bad = Buffer.from(file);
      bad[at] ^= 0x40;
      assert.throws(() => parseTable(bad, bad.length), CacheUnreadable, `byte ${at}`);
    }
  });

  it('cache and PDF both gone → 422 DOCUMENT_FILE_MISSING (not a 500); the PDF back → pages again', async () => {
    const row = t.bridge.services.documents.get(cad);
    const pdf = t.bridge.services.documents.filePath(row);
    renameSync(pdf, `${pdf}.away`);
    rmSync(bookDir(t, cad), { recursive: true });
    forget(t);
    for (const path of [`/documents/${cad}/pages?start=1&end=7`, `/documents/${cad}/outline`]) {
      const r = await t.client.raw('GET', path);
      assert.equal(r.status, 422, `${path}: ${r.text().slice(0, 300)}`);
      assert.equal(r.json<{ error: { code: string } }>().error.code, 'DOCUMENT_FILE_MISSING');
    }
    renameSync(`${pdf}.away`, pdf);
    const r = await t.client.request<{ pages: unknown[] }>('GET', `/documents/${cad}/pages?start=1&end=7`);
    assert.equal(r.pages.length, 7);
  });

  it('restart on the same data dir reads the cache files (no rebuild)', async () => {
    const before = statSync(pagesFile(t, manual)).mtimeMs;
    await t.bridge.close();
    t = await startBridge({ dataDir, store: { idleCheckpointMs: 0 } });
    assert.deepEqual(await answersAfterRebuild(t, manual, 59), expected);
    assert.equal(statSync(pagesFile(t, manual)).mtimeMs, before);
  });
});

describe('page cache: migration of a data dir written before issue 10', function () {
  this.timeout(60_000);

  it('pages rows become cache files; the pages read back identical without the PDFs; the rows are gone', async () => {
    const fixture = join(__dirname, '../fixtures/legacy-v5');
    const manifest = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as {
      books: Record<string, { bookmd5: string }>;
      answers: Array<{ path: string; status: number; body: Record<string, unknown>; request?: unknown }>;
    };
    const dataDir = tempDir('sb-pagemig-');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'library.db'), gunzipSync(readFileSync(join(fixture, 'data', 'library.db.gz'))));
    // No PDFs: every page below comes from the migrated cache, none from a rebuild.
    const t = await startBridge({ dataDir, store: { idleCheckpointMs: 0 } });
    try {
      const store = t.bridge.services.store;
      assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM pages')!.n, 0);
      assert.equal(
        store.get<{ n: number }>('SELECT count(*) AS n FROM documents WHERE outline_original IS NOT NULL')!.n,
        0,
      );
      for (const { bookmd5 } of Object.values(manifest.books))
        assert.deepEqual(readdirSync(join(dataDir, 'cache', 'pages', bookmd5)).sort(), ['outline.pc', 'pages.pc']);
      const reading = manifest.answers.filter((a) =>
        /^\/documents\/[0-9a-f]{32}\/(pages|outline|toc-candidates|locate)/.test(a.path),
      );
      assert.equal(reading.length, 6);
      for (const a of reading) {
        const r = a.request
          ? await t.client.raw('POST', a.path, { body: a.request })
          : await t.client.raw('GET', a.path);
        assert.equal(r.status, a.status, `${a.path}: ${r.text()}`);
        assert.deepEqual(withoutAdditions(withoutRects(r.json())), a.body, a.path);
      }
      // Idempotent: a second run finds nothing to move.
      assert.deepEqual(await migratePagesToCache(store, dataDir), { documents: 0, pages: 0 });
    } finally {
      await t.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function flip(file: string, at: number): void {
  const b = readFileSync(file);
  b[at] ^= 0xff;
  writeFileSync(file, b);
}
