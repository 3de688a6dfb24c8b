import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { readerPicturesDir, readReaderPicture } from '../../src/server/ground/cache/readerPictures';
import { storeDigest } from '../helpers/storeDigest';
import { corpusFile, qpdfCheck, qpdfPageCount } from '../unit/pdfCorpus';
import { upload } from './documentsFixture';

const libraryFiles = (t: TestBridge) => {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(t.bridge.services.config.libraryDir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk('');
  return out.sort();
};

describe('library documents: upload, delete, folders; document writes', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let cad: string;
  let ti: string;
  let topicid: string;
  before(async () => {
    t = await startBridge({ limits: { uploadBytes: 2 * 1024 * 1024 } });
    topicid = (await t.client.createStudySet('Reading')).topicid;
    cad = (await upload(t, 'CAD.pdf', { folder: 'papers/cad', topicid })).bookmd5;
    ti = (await upload(t, '4ti2_manual.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(cad);
    await t.bridge.services.extraction.whenReady(ti);
  });
  after(() => t.stop());

  /** Asserts a refusal: status, code, store and library files unchanged. */
  async function refused(
    method: 'GET' | 'POST',
    path: string,
    opts: Parameters<TestBridge['client']['raw']>[2],
    status: number,
    code: string,
  ) {
    const before = storeDigest(t.bridge.services.store);
    const files = libraryFiles(t);
    const res = await t.client.raw(method, path, opts);
    assert.equal(res.status, status, res.text());
    assert.equal(res.json<any>().error.code, code);
    assert.equal(storeDigest(t.bridge.services.store), before);
    assert.deepEqual(libraryFiles(t), files);
  }

  it('upload stores the file in its folder, md5 id, added to the study set; the same bytes again → the existing document', async () => {
    assert.ok(existsSync(join(t.bridge.services.config.libraryDir, 'papers/cad/CAD.pdf')));
    const again = await upload(t, 'CAD.pdf', { filename: 'other.pdf' });
    assert.equal(again.bookmd5, cad);
    assert.equal(again.created, false);
    assert.ok(again.warnings?.length);
    assert.equal(libraryFiles(t).filter((f) => f.endsWith('.pdf')).length, 2);
    const sets = t.bridge.services.store.all('SELECT is_main FROM topic_documents WHERE topicid = ? AND bookmd5 = ?', [
      topicid,
      cad,
    ]);
    assert.deepEqual(sets, [{ is_main: 1 }]);
  });

  it('upload never overwrites a same-named file (movedToFolder:false, warning)', async () => {
    const bytes = readFileSync(corpusFile('CAD.pdf'));
    const changed = Buffer.concat([bytes, Buffer.from('\n%extra\n')]);
    const r = await t.client.call('POST /library/documents/upload', {
      bytes: changed,
      query: { filename: 'CAD.pdf', folder: 'papers/cad', confirm: 1 },
    });
    assert.equal(r.created, true);
    assert.equal(r.movedToFolder, false);
    assert.ok((r.warnings?.length ?? 0) >= 1);
    assert.deepEqual(readFileSync(join(t.bridge.services.config.libraryDir, 'papers/cad/CAD.pdf')), bytes);
    await t.bridge.services.extraction.whenReady(r.bookmd5);
    await t.client.request('POST', `/library/documents/${r.bookmd5}/delete`, { body: { confirm: true } });
  });

  for (const [label, query, bytes, status, code] of [
    ['no filename', {}, 'pdf', 422, 'INVALID_INPUT'],
    ['filename with /', { filename: 'a/b.pdf' }, 'pdf', 422, 'INVALID_FILENAME'],
    ['filename with ..', { filename: '..evil.pdf' }, 'pdf', 422, 'INVALID_FILENAME'],
    ['filename with leading .', { filename: '.hidden.pdf' }, 'pdf', 422, 'INVALID_FILENAME'],
    ['folder traversal', { filename: 'x.pdf', folder: '../outside' }, 'pdf', 422, 'INVALID_FOLDER'],
    ['absolute folder', { filename: 'x.pdf', folder: '/etc' }, 'pdf', 422, 'INVALID_FOLDER'],
    ['not a PDF', { filename: 'x.pdf' }, 'text', 422, 'NOT_A_PDF'],
    ['corrupt PDF', { filename: 'x.pdf' }, 'corrupt', 422, 'CORRUPT_PDF'],
    ['huge upload', { filename: 'x.pdf' }, 'huge', 413, 'PAYLOAD_TOO_LARGE'],
    [
      'unknown study set',
      { filename: 'x.pdf', topicid: '00000000-0000-0000-0000-000000000000' },
      'pdf',
      404,
      'TOPIC_NOT_FOUND',
    ],
    ['topicid not a UUID', { filename: 'x.pdf', topicid: 'a'.repeat(32) }, 'pdf', 422, 'INVALID_INPUT'],
  ] as const) {
    it(`upload refuses ${label} → ${status} ${code}, nothing stored`, async () => {
      const pdf = Buffer.concat([readFileSync(corpusFile('CAD.pdf')), Buffer.from(`%${label}`)]);
      const body =
        bytes === 'pdf'
          ? pdf
          : bytes === 'text'
            ? Buffer.from('hello, not a pdf')
            : bytes === 'corrupt'
              ? Buffer.from('%PDF-1.7\n1 0 obj garbage\n%%EOF')
              : Buffer.alloc(3 * 1024 * 1024, 1);
      await refused(
        'POST',
        '/library/documents/upload',
        { bytes: body, query: { ...query, confirm: 1 } },
        status,
        code,
      );
    });
  }

  it('GET /library/folders lists real folders; traversal refused', async () => {
    const root = await t.client.call('GET /library/folders', { query: { path: '' } });
    assert.deepEqual(
      root.folders.map((f) => f.path),
      ['papers'],
    );
    const deep = await t.client.call('GET /library/folders', { query: { path: '', depth: 3 } });
    assert.deepEqual(
      deep.folders.map((f) => [f.path, f.fileCount]),
      [
        ['papers', 0],
        ['papers/cad', 1],
      ],
    );
    await refused('GET', '/library/folders', { query: { path: '../..' } }, 422, 'INVALID_FOLDER');
    await refused('GET', '/library/folders', { query: { path: 'nope' } }, 404, 'FOLDER_NOT_FOUND');
    await refused('GET', '/library/folders', { query: { depth: 0 } }, 422, 'INVALID_INPUT');
  });

  it('POST toc: true dry-run, clamped levels, AI slot displayed, original kept, switch back and forth', async () => {
    const entries = [
      { title: 'Start', page: 1, level: 0 },
      { title: 'Deep', page: 2, level: 9 },
      { title: 'Same page', page: 2, level: -1 },
    ];
    const before = storeDigest(t.bridge.services.store);
    const dry = await t.client.raw('POST', `/documents/${ti}/toc`, { body: { entries } });
    assert.equal(dry.status, 422);
    const d = dry.json<any>().error;
    assert.equal(d.code, 'CONFIRM_REQUIRED');
    assert.deepEqual([d.details.wouldWrite, d.details.pageCount], [3, 59]);
    assert.deepEqual(d.details.adjustedLevels, [
      { index: 1, from: 9, to: 7 },
      { index: 2, from: -1, to: 0 },
    ]);
    assert.equal(storeDigest(t.bridge.services.store), before);
    const w = await t.client.call('POST /documents/{id}/toc', { params: { id: ti }, body: { entries, confirm: true } });
    assert.equal(w.persisted, true);
    let o = await t.client.call('GET /documents/{id}/outline', { params: { id: ti } });
    assert.deepEqual(
      o.segments.map((s) => [s.title, s.startPage, s.level]),
      [
        ['Start', 1, 0],
        ['Deep', 2, 7],
        ['Same page', 2, 0],
      ],
    );
    await t.client.request('POST', `/documents/${ti}/toc`, { body: { useOriginal: true, confirm: true } });
    o = await t.client.call('GET /documents/{id}/outline', { params: { id: ti } });
    assert.equal(o.tocSource, 'original');
    assert.equal(o.segments.length, 40);
    await t.client.request('POST', `/documents/${ti}/toc`, { body: { useAI: true, confirm: true } });
    assert.equal((await t.client.call('GET /documents/{id}/outline', { params: { id: ti } })).segments.length, 3);
  });

  it('POST toc refuses decreasing pages, pages beyond the book, virtual pages, mixed modes — whole batch, nothing written', async () => {
    await refused(
      'POST',
      `/documents/${ti}/toc`,
      {
        body: {
          entries: [
            { title: 'a', page: 5, level: 0 },
            { title: 'b', page: 3, level: 0 },
          ],
          confirm: true,
        },
      },
      422,
      'TOC_PAGES_NOT_INCREASING',
    );
    await refused(
      'POST',
      `/documents/${ti}/toc`,
      { body: { entries: [{ title: 'a', page: 60, level: 0 }], confirm: true } },
      422,
      'TOC_PAGE_OUT_OF_RANGE',
    );
    await refused(
      'POST',
      `/documents/${ti}/toc`,
      { body: { entries: [{ title: 'a', page: 66001, level: 0 }], confirm: true } },
      422,
      'VIRTUAL_PAGE',
    );
    await refused(
      'POST',
      `/documents/${ti}/toc`,
      { body: { entries: [{ title: 'a', page: 1, level: 0 }], useAI: true, confirm: true } },
      422,
      'INVALID_TOC_REQUEST',
    );
    await refused('POST', `/documents/${ti}/toc`, { body: { entries: [], confirm: true } }, 422, 'INVALID_INPUT');
  });

  it('POST export: flat PDF with highlights, passes qpdf --check, requested page count; whole book when omitted', async () => {
    await t.bridge.services.store.write((tx) =>
      tx.run(
        `INSERT INTO notes(noteid, topicid, title, source_bookmd5, source_page, source_rect, created_at, modified_at) VALUES ('N1', ?, 'x', ?, 1, '{"x":0.1,"y":0.1,"width":0.5,"height":0.05}', 'now', 'now')`,
        [topicid, cad],
      ),
    );
    const r = await t.client.call('POST /documents/{id}/export', {
      params: { id: cad },
      body: { topicid, selectedPageNos: [1, 3] },
    });
    assert.equal(r.pageCount, 2);
    assert.equal(r.highlightCount, 1);
    assert.ok(r.path.startsWith(join(t.dataDir, 'DocumentExports')));
    assert.equal(qpdfPageCount(r.path), 2);
    assert.ok(qpdfCheck(r.path).ok);
    const all = await t.client.call('POST /documents/{id}/export', { params: { id: cad }, body: { topicid } });
    assert.equal(all.pageCount, 7);
    assert.equal(qpdfPageCount(all.path), 7);
  });

  it('POST export refusals: empty selection, virtual page, page beyond, missing topicid, unknown set', async () => {
    await refused('POST', `/documents/${cad}/export`, { body: { topicid, selectedPageNos: [] } }, 422, 'INVALID_INPUT');
    await refused(
      'POST',
      `/documents/${cad}/export`,
      { body: { topicid, selectedPageNos: [66000] } },
      422,
      'VIRTUAL_PAGE',
    );
    await refused(
      'POST',
      `/documents/${cad}/export`,
      { body: { topicid, selectedPageNos: [8] } },
      422,
      'PAGE_OUT_OF_RANGE',
    );
    await refused('POST', `/documents/${cad}/export`, { body: {} }, 422, 'INVALID_INPUT');
    await refused(
      'POST',
      `/documents/${cad}/export`,
      { body: { topicid: '00000000-0000-0000-0000-000000000000' } },
      404,
      'TOPIC_NOT_FOUND',
    );
  });

  it('POST export: a second export while one runs → 429 EXPORT_BUSY', async () => {
    const [a, b] = await Promise.all([
      t.client.raw('POST', `/documents/${ti}/export`, { body: { topicid } }),
      t.client.raw('POST', `/documents/${ti}/export`, { body: { topicid } }),
    ]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [200, 429]);
    const busy = [a, b].find((x) => x.status === 429)!;
    assert.equal(busy.json<any>().error.code, 'EXPORT_BUSY');
    assert.ok(busy.headers.get('retry-after'));
  });

  it('bad input on every document route: wrong id kind, page 0, page 66001, end < start, 61 pages → 4xx with a code', async () => {
    const id = ti;
    const cases: [string, string, any, number, string][] = [
      ['GET', `/documents/${topicid}/outline`, {}, 422, 'INVALID_INPUT'],
      ['GET', `/documents/${'f'.repeat(32)}/outline`, {}, 404, 'DOCUMENT_NOT_FOUND'],
      ['GET', `/documents/${id}/pages`, { query: { start: 0 } }, 422, 'INVALID_INPUT'],
      ['GET', `/documents/${id}/pages`, { query: { start: 66001 } }, 422, 'VIRTUAL_PAGE'],
      ['GET', `/documents/${id}/pages`, { query: { start: 5, end: 4 } }, 422, 'INVALID_RANGE'],
      ['GET', `/documents/${id}/pages`, { query: { start: 1, end: 61 } }, 422, 'TOO_MANY_PAGES'],
      ['GET', `/documents/${id}/pages`, { query: { start: 1, end: 3, blocks: 1 } }, 422, 'BLOCK_PROBE_TOO_MANY'],
      ['GET', `/documents/${id}/pages`, { query: { start: 'x' } }, 422, 'INVALID_INPUT'],
      ['GET', `/documents/${id}/pages/0/parts`, {}, 422, 'INVALID_INPUT'],
      ['GET', `/documents/${id}/pages/66001/parts`, {}, 422, 'VIRTUAL_PAGE'],
      ['GET', `/documents/${id}/pages/1/content/NOPE`, {}, 404, 'CONTENT_NOT_FOUND'],
      ['GET', `/documents/${id}/pages/1/content/C1`, { query: { maxEdge: 10 } }, 422, 'INVALID_INPUT'],
      ['GET', `/documents/${id}/toc-candidates`, { query: { start: 0 } }, 422, 'INVALID_INPUT'],
      ['GET', `/documents/${id}/toc-candidates`, { query: { start: 66001 } }, 422, 'VIRTUAL_PAGE'],
      ['GET', `/documents/${id}/toc-candidates`, { query: { start: 9, end: 3 } }, 422, 'INVALID_RANGE'],
      ['POST', `/documents/${id}/locate`, { body: { text: 'x' } }, 422, 'INVALID_INPUT'],
      ['POST', `/documents/${id}/locate`, { body: { page: 0, text: 'x' } }, 422, 'INVALID_INPUT'],
      ['POST', `/documents/${id}/locate`, { body: { page: 66001, text: 'x' } }, 422, 'VIRTUAL_PAGE'],
      ['POST', `/documents/${id}/locate`, { body: { page: 60, text: 'x' } }, 422, 'PAGE_OUT_OF_RANGE'],
      ['POST', `/documents/${id}/locate`, { body: { page: 1, text: '' } }, 422, 'INVALID_INPUT'],
      ['GET', `/documents/${topicid}/sync-status`, {}, 422, 'INVALID_INPUT'],
      ['POST', `/library/documents/${topicid}/delete`, { body: { confirm: true } }, 422, 'INVALID_INPUT'],
      ['POST', `/library/documents/${'0'.repeat(32)}/delete`, { body: { confirm: true } }, 404, 'DOCUMENT_NOT_FOUND'],
    ];
    for (const [method, path, opts, status, code] of cases) {
      const before = storeDigest(t.bridge.services.store);
      const res = await t.client.raw(method as 'GET' | 'POST', path, opts);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(opts)}: ${res.text()}`);
      assert.equal(res.json<any>().error.code, code, `${method} ${path}`);
      assert.equal(storeDigest(t.bridge.services.store), before);
    }
  });

  it('page parts: stored parts listed; content is a PNG within maxEdge', async () => {
    const png = readFileSync(corpusFile('../corpus/README.md')).length > 0;
    assert.ok(png);
    await t.bridge.services.store.write((tx) =>
      tx.run(
        `INSERT INTO page_parts(content_id, bookmd5, page, kind, rect, created_at) VALUES ('C1', ?, 1, 'blank', '{"x":0.1,"y":0.1,"width":0.4,"height":0.2}', 'now')`,
        [ti],
      ),
    );
    const parts = await t.client.call('GET /documents/{id}/pages/{page}/parts', { params: { id: ti, page: '1' } });
    assert.deepEqual(
      parts.blanks.map((b) => b.contentIds),
      [['C1']],
    );
    const img = await t.client.raw('GET', `/documents/${ti}/pages/1/content/C1`, { query: { maxEdge: 256 } });
    assert.equal(img.status, 200);
    assert.equal(img.headers.get('content-type'), 'image/png');
    assert.equal(img.bytes.readUInt32BE(16), 256); // IHDR width: the longer edge
  });

  it('sync-status reports verified_mismatch and missing_file', async () => {
    const r = await upload(t, 'CAD.pdf', { filename: 'copy.pdf', folder: 'tmp' });
    // same bytes → existing document; make a distinct one
    assert.equal(r.created, false);
    const bytes = Buffer.concat([readFileSync(corpusFile('CAD.pdf')), Buffer.from('%sync')]);
    const d = await t.client.call('POST /library/documents/upload', {
      bytes,
      query: { filename: 'sync.pdf', folder: 'tmp', confirm: 1 },
    });
    await t.bridge.services.extraction.whenReady(d.bookmd5);
    const file = join(t.bridge.services.config.libraryDir, 'tmp/sync.pdf');
    writeFileSync(file, Buffer.concat([bytes, Buffer.from('x')]));
    assert.equal(
      (await t.client.call('GET /documents/{id}/sync-status', { params: { id: d.bookmd5 }, query: { verifyHash: 1 } }))
        .state,
      'verified_mismatch',
    );
    mkdirSync(join(t.bridge.services.config.libraryDir, 'tmp'), { recursive: true });
    require('node:fs').rmSync(file);
    assert.equal(
      (await t.client.call('GET /documents/{id}/sync-status', { params: { id: d.bookmd5 } })).state,
      'missing_file',
    );
    await t.client.request('POST', `/library/documents/${d.bookmd5}/delete`, { body: { confirm: true } });
  });

  it('delete: 409 DOCUMENT_IN_USE while cards are anchored, hidden ones too (a set deleted with keepHighlights keeps them); then removes file and records', async () => {
    await refused('POST', `/library/documents/${cad}/delete`, { body: { confirm: true } }, 409, 'DOCUMENT_IN_USE');
    await t.bridge.services.store.write((tx) => tx.run(`UPDATE notes SET hidden = 1 WHERE noteid = 'N1'`));
    const kept = await t.client.raw('POST', `/library/documents/${cad}/delete`, { body: { confirm: true } });
    assert.equal(kept.status, 409);
    assert.deepEqual(
      [kept.json<any>().error.details.anchoredCards, kept.json<any>().error.details.hiddenAnchoredCards],
      [1, 1],
    );
    await t.bridge.services.store.write((tx) => tx.run(`DELETE FROM notes WHERE noteid = 'N1'`));
    const r = await t.client.call('POST /library/documents/{id}/delete', {
      params: { id: cad },
      body: { confirm: true },
    });
    assert.deepEqual([r.removed, r.partial], [true, false]);
    assert.ok(!existsSync(join(t.bridge.services.config.libraryDir, 'papers/cad/CAD.pdf')));
    assert.equal(t.bridge.services.store.get('SELECT 1 FROM pages WHERE bookmd5 = ?', [cad]), undefined);
    const gone = await t.client.raw('GET', `/documents/${cad}/outline`);
    assert.equal(gone.status, 404);
  });
});

describe("the reader's opening picture goes with its book", function () {
  this.timeout(60_000);

  it('a document delete removes its picture; a start removes pictures of books the library no longer holds and keeps the others', async () => {
    const dataDir = tempDir();
    let t = await startBridge({ dataDir });
    try {
      const gone = (await upload(t, 'CAD.pdf')).bookmd5;
      const kept = (await upload(t, '4ti2_manual.pdf')).bookmd5;
      await t.bridge.services.extraction.whenReady(gone);
      const dir = readerPicturesDir(dataDir);
      mkdirSync(dir, { recursive: true });
      const stranger = 'f'.repeat(32);
      for (const md5 of [gone, kept, stranger]) writeFileSync(join(dir, `${md5}.page`), 'picture');
      writeFileSync(join(dir, 'notes.txt'), 'not a picture: left alone');
      await t.client.request('POST', `/library/documents/${gone}/delete`, { body: { confirm: true } });
      assert.deepEqual(readdirSync(dir).sort(), [`${kept}.page`, `${stranger}.page`, 'notes.txt'].sort());
      await t.bridge.close();
      t = await startBridge({ dataDir });
      assert.deepEqual(readdirSync(dir).sort(), [`${kept}.page`, 'notes.txt'].sort());
    } finally {
      await t.bridge.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("the extension's bridge renders a new book's first page for its first opening, ahead of the book's pages; a headless one does not", async () => {
    const withPictures = await startBridge({ openingPictures: true });
    const headless = await startBridge();
    try {
      // An agent uploads two books: the second's picture is rendered in front of the first's 200-odd pages, not after them.
      const first = (await upload(withPictures, 'asymptote.pdf')).bookmd5;
      const md5 = (await upload(withPictures, 'CAD.pdf')).bookmd5;
      const file = join(readerPicturesDir(withPictures.dataDir), `${md5}.page`);
      for (let i = 0; i < 600 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
      const reading = withPictures.bridge.services.documents.get(first);
      // The second upload's own reads (its info, its picture) went before the first book's queued pages too.
      assert.ok(
        reading.extracted_pages < reading.page_count / 2,
        `the first book is still being read: ${reading.extracted_pages} of ${reading.page_count} pages`,
      );
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const picture = readReaderPicture(withPictures.dataDir, md5, 1)!;
      const size = (
        await withPictures.client.request<{ pageSize: { width: number; height: number } }>(
          'POST',
          `/documents/${md5}/locate`,
          { body: { page: 1, text: 'CAD' } },
        )
      ).pageSize;
      assert.deepEqual(
        [picture.page, Math.round(picture.widthPt), Math.round(picture.heightPt)],
        [1, Math.round(size.width), Math.round(size.height)],
      );
      // A WebP at 2 pixels a point: its VP8X header says so (canvas width and height less one, 24 bits each, at 24 and 27).
      assert.deepEqual(
        [picture.webp.subarray(0, 4).toString('latin1'), picture.webp.subarray(8, 16).toString('latin1')],
        ['RIFF', 'WEBPVP8X'],
      );
      const px = [1 + picture.webp.readUIntLE(24, 3), 1 + picture.webp.readUIntLE(27, 3)];
      assert.deepEqual(
        px.map((n) => Math.round(n / 2)),
        [Math.round(size.width), Math.round(size.height)],
      );

      const other = (await upload(headless, '4ti2_manual.pdf')).bookmd5;
      await headless.bridge.services.extraction.whenReady(other);
      assert.equal(existsSync(join(readerPicturesDir(headless.dataDir), `${other}.page`)), false);
    } finally {
      await withPictures.stop();
      await headless.stop();
    }
  });
});
