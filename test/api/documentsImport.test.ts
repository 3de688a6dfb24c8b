import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { corpusDir, corpusFile } from '../unit/pdfCorpus';

const libraryFiles = (t: TestBridge) =>
  readdirSync(t.bridge.services.config.libraryDir, { recursive: true, encoding: 'utf8' }).sort();

describe('POST /library/documents/import (a PDF on this machine by path) and raw-body routes', function () {
  this.timeout(120_000);
  let t: TestBridge;
  let inbox: string;
  let outside: string;
  before(async () => {
    inbox = tempDir('sb-inbox-');
    outside = tempDir('sb-outside-');
    copyFileSync(corpusFile('CAD.pdf'), join(inbox, 'CAD.pdf'));
    writeFileSync(join(inbox, 'notes.txt'), 'not a pdf');
    writeFileSync(join(inbox, 'fake.pdf'), 'hello, not a pdf at all');
    mkdirSync(join(inbox, 'folder.pdf'));
    copyFileSync(corpusFile('CAD.pdf'), join(outside, 'secret.pdf'));
    symlinkSync(join(outside, 'secret.pdf'), join(inbox, 'link.pdf'));
    t = await startBridge({ importFolders: [inbox] });
  });
  after(async () => {
    await t.stop();
    rmSync(inbox, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const importBody = (body: Record<string, unknown>) => ({ body: { confirm: true, ...body } });

  async function refused(path: string, opts: Parameters<TestBridge['client']['raw']>[2], status: number, code: string) {
    const before = storeDigest(t.bridge.services.store);
    const files = libraryFiles(t);
    const res = await t.client.raw('POST', path, opts);
    assert.equal(res.status, status, res.text());
    const err = res.json<any>().error;
    assert.equal(err.code, code, res.text());
    assert.ok(err.message.length > 20);
    assert.equal(storeDigest(t.bridge.services.store), before, `${code}: nothing stored`);
    assert.deepEqual(libraryFiles(t), files);
    return err;
  }

  it('imports a PDF from an import folder exactly like upload: same answer fields, md5 id, added to the set; again → alreadyPresent', async () => {
    const set = await t.client.createStudySet('Imported');
    const res = await t.client.call('POST /library/documents/import', {
      body: { path: join(inbox, 'CAD.pdf'), topicid: set.topicid, folder: 'papers', confirm: true },
    });
    assert.equal(
      res.bookmd5,
      createHash('md5')
        .update(readFileSync(corpusFile('CAD.pdf')))
        .digest('hex'),
    );
    assert.deepEqual(
      [res.created, res.filename, res.folder, res.addedToStudySet, res.movedToFolder, res.extraction.state],
      [true, 'CAD.pdf', 'papers', true, true, 'extracting'],
    );
    assert.ok(res.pageCount > 0);
    assert.deepEqual(libraryFiles(t), ['papers', 'papers/CAD.pdf']);
    const docs = await t.client.call('GET /study-sets/{id}/documents', { params: { id: set.topicid } });
    assert.ok(JSON.stringify(docs).includes(res.bookmd5));
    await t.bridge.services.extraction.whenReady(res.bookmd5);
    const again = await t.client.call('POST /library/documents/import', {
      body: { path: join(inbox, 'CAD.pdf'), filename: 'Other.pdf', confirm: true },
    });
    assert.deepEqual([again.bookmd5, again.created, again.alreadyPresent], [res.bookmd5, false, true]);
  });

  it('refusals: outside the folders 403 PATH_NOT_ALLOWED naming them (a symlink out too), missing 404, not a PDF 422 NOT_A_PDF, relative path, no confirm', async () => {
    const out = await refused(
      '/library/documents/import',
      importBody({ path: join(outside, 'secret.pdf') }),
      403,
      'PATH_NOT_ALLOWED',
    );
    assert.ok(
      out.details.allowedFolders.includes(inbox) ||
        out.details.allowedFolders.some((f: string) => f.endsWith(inbox.split('/').pop()!)),
      JSON.stringify(out.details),
    );
    assert.match(out.message, /studyBridge\.importFolders/);
    await refused(
      '/library/documents/import',
      importBody({ path: corpusFile('asymptote.pdf') }),
      403,
      'PATH_NOT_ALLOWED',
    );
    await refused(
      '/library/documents/import',
      importBody({ path: join(corpusDir, 'missing.pdf') }),
      403,
      'PATH_NOT_ALLOWED',
    );
    await refused('/library/documents/import', importBody({ path: join(inbox, 'link.pdf') }), 403, 'PATH_NOT_ALLOWED');
    await refused(
      '/library/documents/import',
      importBody({ path: join(inbox, '..', 'etc', 'passwd') }),
      403,
      'PATH_NOT_ALLOWED',
    );
    await refused('/library/documents/import', importBody({ path: join(inbox, 'missing.pdf') }), 404, 'FILE_NOT_FOUND');
    await refused('/library/documents/import', importBody({ path: join(inbox, 'notes.txt') }), 422, 'NOT_A_PDF');
    await refused('/library/documents/import', importBody({ path: join(inbox, 'fake.pdf') }), 422, 'NOT_A_PDF');
    await refused('/library/documents/import', importBody({ path: join(inbox, 'folder.pdf') }), 422, 'NOT_A_PDF');
    await refused('/library/documents/import', importBody({ path: 'CAD.pdf' }), 422, 'INVALID_PATH');
    await refused('/library/documents/import', { body: { path: join(inbox, 'CAD.pdf') } }, 422, 'CONFIRM_REQUIRED');
  });

  it('a JSON body to the upload route → 415 RAW_BODY_REQUIRED naming study_upload, not NOT_A_PDF', async () => {
    const err = await refused(
      '/library/documents/upload',
      { body: { path: join(inbox, 'CAD.pdf') }, query: { filename: 'x.pdf', confirm: 1 } },
      415,
      'RAW_BODY_REQUIRED',
    );
    assert.match(err.message, /study_upload/);
    assert.equal(err.details.mediaType, 'application/pdf');
  });

  it('/capabilities marks raw-body routes and carries each declared example; the guide marks them too', async () => {
    const caps = await t.client.call('GET /capabilities');
    const upload = caps.routes.find((r) => r.path === '/library/documents/upload');
    assert.equal(upload?.rawBody, 'application/pdf');
    assert.deepEqual(upload.example, { query: { filename: 'book.pdf' } });
    // The raw-body routes: a PDF upload, and an Anki package import.
    assert.deepEqual(
      caps.routes
        .filter((r) => r.rawBody)
        .map((r) => [r.path, r.rawBody])
        .sort(),
      [
        ['/decks/import', 'application/octet-stream'],
        ['/library/documents/upload', 'application/pdf'],
      ],
    );
    const notes = caps.routes.find((r) => r.method === 'POST' && r.path === '/study-sets/{id}/notes');
    assert.equal(typeof notes?.example?.body, 'object');
    // Every listed POST route with a JSON body carries an example body.
    for (const r of caps.routes)
      if (r.method === 'POST' && !r.rawBody && r.path !== '/mcp') assert.ok(r.example, `${r.path} has an example`);
    assert.match(
      (await t.client.raw('GET', '/guide/routes')).text(),
      /\| POST \| `\/library\/documents\/upload` \|[^\n]*\*raw body\* \(application\/pdf\)/,
    );
    assert.match(await t.client.guide(), /`POST \/library\/documents\/upload\?[^`]*` with the PDF's bytes as the body/);
  });
});
