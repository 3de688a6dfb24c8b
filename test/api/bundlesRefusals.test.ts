import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { upload } from './documentsFixture';
import { pollPrepared } from './bundlesFixture';

/**
 * Every bundle route refuses bad input with a 4xx, a code and a message that
 * says what to do, and changes nothing: the store digest is the same and no
 * bundle folder appears. The few success cases here (merged overlaps, discard
 * twice) sit beside the refusals they border.
 */

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Enough files that removing the folder outlasts one HTTP round trip by far. */
const FILLER_FILES = 5000;
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('bundles: refusals change nothing', function () {
  this.timeout(180_000);
  let t: TestBridge;
  let premium = true;
  let topicid: string;
  let asy: string;
  let bundleId: string;
  let bundlesDir: string;

  const folders = () => (existsSync(bundlesDir) ? readdirSync(bundlesDir).sort() : []);
  const bundleRows = () => t.bridge.services.store.all<{ n: number }>('SELECT count(*) AS n FROM bundles')[0].n;

  /** Sends the request, asserts status, code and a message mentioning `says`, and that nothing changed. */
  async function refused(
    method: 'GET' | 'POST',
    path: string,
    opts: { body?: unknown; query?: Record<string, string> },
    status: number,
    code: string,
    says: RegExp,
  ) {
    const digest = storeDigest(t.bridge.services.store);
    const before = folders();
    const r = await t.client.raw(method, path, opts);
    const body = r.json<ErrorBody>();
    assert.equal(r.status, status, `${method} ${path}: ${r.text()}`);
    assert.equal(body.error.code, code, r.text());
    assert.match(body.error.message, says);
    assert.equal(storeDigest(t.bridge.services.store), digest, `${code}: the store is unchanged`);
    assert.deepEqual(folders(), before, `${code}: no bundle folder created or removed`);
    assert.equal(t.bridge.services.bundles.runner.running, undefined, `${code}: no job started`);
    return body.error;
  }

  const prepare = (body: Record<string, unknown>) => ({
    body: { topicid, bookmd5: asy, segments: [{ startPage: 19, endPage: 20 }], ...body },
  });

  before(async () => {
    t = await startBridge({ entitlements: { premium: () => premium } });
    bundlesDir = join(t.bridge.services.bundles.bundlesDir);
    asy = (await upload(t, 'asymptote.pdf')).bookmd5;
    await t.bridge.services.extraction.whenReady(asy);
    topicid = (await t.client.createStudySet('Refusals')).topicid;
    bundleId = (await t.client.request<{ bundleId: string }>('POST', '/bundles/prepare', prepare({}))).bundleId;
  });
  after(async () => t.stop());

  describe('POST /bundles/prepare', () => {
    it('a preset outside the whitelist → 422 INVALID_PRESET listing the valid ones', async () => {
      const e = await refused(
        'POST',
        '/bundles/prepare',
        prepare({ preset: 'book_breakdown' }),
        422,
        'INVALID_PRESET',
        /book-breakdown, source-structure, exam-general, dictionary/,
      );
      assert.deepEqual(e.details!.validValues, ['book-breakdown', 'source-structure', 'exam-general', 'dictionary']);
    });

    it('an anchorMode outside page_text|block → 422 INVALID_ANCHOR_MODE listing both', async () => {
      const e = await refused(
        'POST',
        '/bundles/prepare',
        prepare({ anchorMode: 'blocks' }),
        422,
        'INVALID_ANCHOR_MODE',
        /page_text, block/,
      );
      assert.deepEqual(e.details!.validValues, ['page_text', 'block']);
    });

    it('more than 60 actual pages → 422 TOO_MANY_PAGES (counted after merging, not the span)', async () => {
      // 31 + 31 = 62 pages (one page overlaps: 61 after merging).
      const e = await refused(
        'POST',
        '/bundles/prepare',
        prepare({
          segments: [
            { startPage: 1, endPage: 31 },
            { startPage: 31, endPage: 61 },
          ],
          async: true,
        }),
        422,
        'TOO_MANY_PAGES',
        /61 actual pages.*at most 60/,
      );
      assert.equal(e.details!.pagesTotal, 61);
    });

    it('more than 10 pages without async → 422 ASYNC_REQUIRED', async () => {
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: 19, endPage: 29 }] }),
        422,
        'ASYNC_REQUIRED',
        /11 pages need async:true/,
      );
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: 19, endPage: 29 }], async: false }),
        422,
        'ASYNC_REQUIRED',
        /async:true/,
      );
    });

    it('pages beyond the document, page 0, virtual pages (≥ 66000), end before start → 422, nothing prepared', async () => {
      const pageCount = t.bridge.services.documents.get(asy).page_count;
      const out = await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: pageCount, endPage: pageCount + 1 }] }),
        422,
        'PAGE_OUT_OF_RANGE',
        new RegExp(`beyond this ${pageCount}-page document`),
      );
      assert.equal(out.details!.pageCount, pageCount);
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: pageCount + 5 }] }),
        422,
        'PAGE_OUT_OF_RANGE',
        /beyond/,
      );
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: 0, endPage: 2 }] }),
        422,
        'INVALID_INPUT',
        /1-based/,
      );
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: 66000 }] }),
        422,
        'VIRTUAL_PAGE',
        /virtual blank page/,
      );
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: 5, endPage: 66001 }] }),
        422,
        'VIRTUAL_PAGE',
        /virtual/,
      );
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: 9, endPage: 8 }] }),
        422,
        'INVALID_RANGE',
        /before startPage/,
      );
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [] }),
        422,
        'INVALID_INPUT',
        /at least one segment/,
      );
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ segments: [{ startPage: 2.5 }] }),
        422,
        'INVALID_INPUT',
        /integers/,
      );
    });

    it('cardStyle.defaultFillIndex outside -1..2 → 422 INVALID_FILL_INDEX', async () => {
      for (const v of [-2, 3, 1.5]) {
        const e = await refused(
          'POST',
          '/bundles/prepare',
          prepare({ cardStyle: { defaultFillIndex: v } }),
          422,
          'INVALID_FILL_INDEX',
          /-1\.\.2.*0 is not "no fill"/,
        );
        assert.deepEqual(e.details!.validValues, [-1, 0, 1, 2]);
      }
    });

    it('a deck id as topicid → 422 IS_A_DECK; an unknown set or document → 404', async () => {
      const deck = await t.client.createDeck('Not a set');
      await refused('POST', '/bundles/prepare', prepare({ topicid: deck.deckId }), 422, 'IS_A_DECK', /deck/i);
      await refused('POST', '/bundles/prepare', prepare({ topicid: MISSING }), 404, 'TOPIC_NOT_FOUND', /.+/);
      await refused(
        'POST',
        '/bundles/prepare',
        prepare({ bookmd5: 'f'.repeat(32) }),
        404,
        'DOCUMENT_NOT_FOUND',
        /No document/,
      );
    });

    it('overlapping and touching segments merge and sort (success): pagesTotal counts each page once', async () => {
      const r = await t.client.raw(
        'POST',
        '/bundles/prepare',
        prepare({
          segments: [
            { startPage: 30, endPage: 34 },
            { startPage: 19, endPage: 22 },
            { startPage: 21, endPage: 25 },
            { startPage: 26, endPage: 26 },
          ],
          async: true,
        }),
      );
      assert.equal(r.status, 202, r.text());
      const p = r.json<{ bundleId: string; pagesTotal: number }>();
      assert.equal(p.pagesTotal, 13, '19–26 (8) + 30–34 (5)');
      const listed = await pollPrepared(t, p.bundleId);
      assert.equal(listed.state, 'prepared');
      assert.equal(listed.title, 'asymptote p. 19–26, 30–34', 'no title given: the book and its pages');
      assert.equal(listed.documentTitle, 'asymptote.pdf');
      const manifest = JSON.parse(
        (await t.client.raw('GET', `/bundles/${p.bundleId}/files`, { query: { path: 'manifest.json' } })).text(),
      ) as { segments: { startPage: number; endPage: number }[]; pages: number[] };
      assert.deepEqual(
        manifest.segments.map((s) => [s.startPage, s.endPage]),
        [
          [19, 26],
          [30, 34],
        ],
      );
      assert.equal(manifest.pages.length, 13);
      await t.client.request('POST', `/bundles/${p.bundleId}/discard`);
    });
  });

  describe('GET /bundles/{id}/files', () => {
    it('../, absolute and drive paths → 422 INVALID_PATH; a symlink out of the folder → 422; a missing file → 404', async () => {
      const dir = join(bundlesDir, bundleId);
      const outside = join(tempDir('sb-outside-'), 'secret.txt');
      writeFileSync(outside, 'not yours');
      symlinkSync(outside, join(dir, 'escape.md'));
      mkdirSync(join(dir, 'sub'));
      symlinkSync(join(outside, '..'), join(dir, 'sub', 'up'));
      const files = `/bundles/${bundleId}/files`;
      for (const path of [
        '../x',
        '../../bundles/x',
        'sub/../../x',
        '..\\x',
        '/etc/passwd',
        'C:\\Windows\\win.ini',
        'C:/x',
      ]) {
        await refused('GET', files, { query: { path } }, 422, 'INVALID_PATH', /relative to the bundle folder/);
      }
      await refused('GET', files, { query: { path: 'escape.md' } }, 422, 'INVALID_PATH', /outside the bundle folder/);
      await refused(
        'GET',
        files,
        { query: { path: 'sub/up/secret.txt' } },
        422,
        'INVALID_PATH',
        /outside the bundle folder/,
      );
      await refused('GET', files, { query: { path: 'nothing.md' } }, 404, 'FILE_NOT_FOUND', /lists them/);
      await refused('GET', `/bundles/${MISSING}/files`, {}, 404, 'BUNDLE_NOT_FOUND', /GET \/bundles/);
      // The inside still reads.
      const ok = await t.client.raw('GET', files, { query: { path: 'TASK.md' } });
      assert.equal(ok.status, 200);
      assert.match(ok.text(), /^# Task: split/);
    });
  });

  describe('POST /bundles/{id}/submit and check', () => {
    it('an unknown bundle → 404 BUNDLE_NOT_FOUND (submit and check)', async () => {
      await refused(
        'POST',
        `/bundles/${MISSING}/submit`,
        { body: { resultMarkdown: '# A\n' } },
        404,
        'BUNDLE_NOT_FOUND',
        /GET \/bundles lists them/,
      );
      await refused(
        'POST',
        `/bundles/${MISSING}/check`,
        { body: { resultMarkdown: '# A\n' } },
        404,
        'BUNDLE_NOT_FOUND',
        /GET \/bundles lists them/,
      );
    });

    it('premium off → 403 MAX_REQUIRED, nothing imported; check stays free', async () => {
      premium = false;
      try {
        await refused(
          'POST',
          `/bundles/${bundleId}/submit`,
          { body: { resultMarkdown: '# Premium\n' } },
          403,
          'MAX_REQUIRED',
          /.+/,
        );
        const c = await t.client.raw('POST', `/bundles/${bundleId}/check`, { body: { resultMarkdown: '# Premium\n' } });
        assert.equal(c.status, 200, c.text());
      } finally {
        premium = true;
      }
    });

    it('result.md as a link (to /dev/zero), a pipe or a folder → 422 RESULT_NOT_A_FILE; over 16 MB → 413; nothing read', async () => {
      const file = join(t.bridge.services.bundles.folderOf(bundleId), 'result.md');
      const draft = readFileSync(file);
      const odd: Array<[string, () => void]> = [
        ['a folder', () => mkdirSync(file)],
        ...(process.platform === 'win32'
          ? []
          : ([
              ['a link to /dev/zero', () => symlinkSync('/dev/zero', file)],
              ['a pipe', () => execFileSync('mkfifo', [file])],
            ] as Array<[string, () => void]>)),
      ];
      for (const [what, make] of odd) {
        rmSync(file, { recursive: true, force: true });
        make();
        for (const route of ['check', 'submit'])
          await refused(
            'POST',
            `/bundles/${bundleId}/${route}`,
            { body: {} },
            422,
            'RESULT_NOT_A_FILE',
            /not a plain file/,
          );
        assert.ok(existsSync(file), `${what} is left as it was`);
      }
      rmSync(file, { recursive: true, force: true });
      writeFileSync(file, `# Big\n${'x'.repeat(16 * 1024 * 1024)}\n`);
      await refused('POST', `/bundles/${bundleId}/submit`, { body: {} }, 413, 'RESULT_TOO_LARGE', /over the 16\.0 MB/);
      writeFileSync(file, draft); // as prepare left it, for the tests after
      const status = await t.client.raw('GET', '/status');
      assert.equal(status.status, 200, 'the bridge still answers');
    });

    it('check and submit with resultMarkdown that is not a string, or a body that is not an object → 422 / 400', async () => {
      for (const route of ['check', 'submit']) {
        const path = `/bundles/${bundleId}/${route}`;
        for (const resultMarkdown of [42, ['# A'], { text: '# A' }, null]) {
          await refused('POST', path, { body: { resultMarkdown } }, 422, 'INVALID_INPUT', /resultMarkdown/);
        }
        await refused(
          'POST',
          path,
          { body: JSON.stringify('# A bare string') },
          400,
          'INVALID_JSON',
          /must be a JSON object/,
        );
        await refused('POST', path, { body: { excerptMode: 'children' } }, 422, 'INVALID_INPUT', /excerptMode/);
      }
      await refused(
        'POST',
        `/bundles/${bundleId}/submit`,
        { body: { resultMarkdown: '  \n' } },
        422,
        'RESULT_EMPTY',
        /empty/,
      );
      await refused('POST', `/bundles/${bundleId}/submit`, {}, 422, 'RESULT_IS_DRAFT', /untouched draft/);
    });

    it('a preparing bundle: files, check and submit → 409 BUNDLE_PREPARING; discard cancels it', async () => {
      // OCR pages read right after upload keep the job waiting, so the bundle is still preparing.
      const scan = (await upload(t, 'scanned-4ti2-p5-8.pdf')).bookmd5;
      const p = await t.client.request<{ bundleId: string; bundlePath: string }>('POST', '/bundles/prepare', {
        body: {
          topicid,
          bookmd5: scan,
          segments: [{ startPage: 4 }],
          anchorMode: 'block',
          preset: 'source-structure',
          async: true,
        },
      });
      const job = t.bridge.services.bundles.runner.running!;
      assert.equal(job.bundleId, p.bundleId, 'still preparing');
      const stillPreparing = async (method: 'GET' | 'POST', path: string, opts: { body?: unknown }) => {
        const r = await t.client.raw(method, path, opts);
        assert.equal(r.status, 409, r.text());
        const e = r.json<ErrorBody>().error;
        assert.equal(e.code, 'BUNDLE_PREPARING');
        assert.match(e.message, /Poll GET \/bundles/);
        assert.equal(e.details!.retryAfterSeconds, 15);
      };
      const entry = (await t.client.request<{ bundles: Record<string, unknown>[] }>('GET', '/bundles')).bundles.find(
        (b) => b.bundleId === p.bundleId,
      )!;
      assert.deepEqual(
        [entry.state, entry.title, entry.documentTitle],
        ['preparing', 'scanned-4ti2-p5-8 p. 4', 'scanned-4ti2-p5-8.pdf'],
        'title and book while preparing',
      );
      const digest = storeDigest(t.bridge.services.store);
      await stillPreparing('GET', `/bundles/${p.bundleId}/files`, {});
      await stillPreparing('GET', `/bundles/${p.bundleId}/files`, { query: { path: 'result.md' } } as never);
      await stillPreparing('POST', `/bundles/${p.bundleId}/check`, { body: { resultMarkdown: '# A\n' } });
      await stillPreparing('POST', `/bundles/${p.bundleId}/submit`, { body: { resultMarkdown: '# A\n' } });
      assert.equal(storeDigest(t.bridge.services.store), digest, 'nothing written by the refusals');
      assert.equal(existsSync(p.bundlePath), false);
      const d = await t.client.request<{ cancelledJob: { jobId: string } | null }>(
        'POST',
        `/bundles/${p.bundleId}/discard`,
      );
      assert.equal(d.cancelledJob?.jobId, job.jobId);
      await job.done;
      assert.equal(existsSync(p.bundlePath), false);
      assert.equal(existsSync(`${p.bundlePath}.partial`), false);
      // The scan's OCR goes on after the discard; its progress rows must not land inside a later test's digest.
      await t.bridge.services.extraction.whenReady(scan);
    });

    it('submit while the bundle is being discarded → 409 BUNDLE_DISCARDING, nothing imported', async () => {
      const b = await t.client.request<{ bundleId: string; bundlePath: string }>(
        'POST',
        '/bundles/prepare',
        prepare({}),
      );
      // Many files make the folder's removal take a while: the discard is still running when submit arrives.
      for (let i = 0; i < FILLER_FILES; i++) writeFileSync(join(b.bundlePath, `agent-note-${i}.txt`), 'x');
      const notesBefore = t.bridge.services.store.all<{ n: number }>(
        'SELECT count(*) AS n FROM notes WHERE topicid = ?',
        [topicid],
      )[0].n;
      const discard = t.client.raw('POST', `/bundles/${b.bundleId}/discard`);
      // The discard marks the bundle as discarding before its first await; wait until the server has taken it.
      for (let i = 0; i < 1000 && !t.bridge.services.bundles.discarding.has(b.bundleId); i++)
        await new Promise((r) => setImmediate(r));
      assert.ok(t.bridge.services.bundles.discarding.has(b.bundleId), 'the discard is running');
      const s = await t.client.raw('POST', `/bundles/${b.bundleId}/submit`, {
        body: { resultMarkdown: '# Too late\n[excerpt: never imported at all]\n' },
      });
      assert.equal(s.status, 409, s.text());
      assert.equal(s.json<ErrorBody>().error.code, 'BUNDLE_DISCARDING');
      assert.match(s.json<ErrorBody>().error.message, /nothing was imported/);
      assert.equal((await discard).status, 200);
      assert.equal(
        t.bridge.services.store.all<{ n: number }>('SELECT count(*) AS n FROM notes WHERE topicid = ?', [topicid])[0].n,
        notesBefore,
        'no card imported',
      );
      assert.equal(existsSync(b.bundlePath), false);
      // After the discard: 404, saying it was discarded.
      await refused(
        'POST',
        `/bundles/${b.bundleId}/submit`,
        { body: { resultMarkdown: '# Too late\n' } },
        404,
        'BUNDLE_NOT_FOUND',
        /was discarded/,
      );
    });
  });

  describe('POST /bundles/{id}/discard', () => {
    it('twice is idempotent: the second answers alreadyDiscarded and changes nothing; an unknown id → 404', async () => {
      const b = await t.client.request<{ bundleId: string; bundlePath: string }>(
        'POST',
        '/bundles/prepare',
        prepare({}),
      );
      const first = await t.client.request<{
        discarded: boolean;
        cancelledJob: unknown;
        folderRemoved: boolean;
        alreadyDiscarded?: boolean;
      }>('POST', `/bundles/${b.bundleId}/discard`);
      assert.deepEqual(
        [first.discarded, first.cancelledJob, first.folderRemoved, first.alreadyDiscarded],
        [true, null, true, undefined],
      );
      const digest = storeDigest(t.bridge.services.store);
      const rows = bundleRows();
      const second = await t.client.request<{
        discarded: boolean;
        alreadyDiscarded: boolean;
        cancelledJob: unknown;
        folderRemoved: boolean;
      }>('POST', `/bundles/${b.bundleId}/discard`);
      assert.deepEqual(
        [second.discarded, second.alreadyDiscarded, second.cancelledJob, second.folderRemoved],
        [true, true, null, true],
      );
      assert.equal(storeDigest(t.bridge.services.store), digest);
      assert.equal(bundleRows(), rows);
      assert.equal(existsSync(b.bundlePath), false);
      await refused('POST', `/bundles/${MISSING}/discard`, {}, 404, 'BUNDLE_NOT_FOUND', /GET \/bundles lists them/);
      await refused('POST', '/bundles/not-a-uuid/discard', {}, 422, 'INVALID_INPUT', /bundle id/);
    });
  });
});
