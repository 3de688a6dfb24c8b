import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';
import { storeDigest } from '../helpers/storeDigest';
import { corpusFile } from '../unit/pdfCorpus';

describe('import by path: the guide names the folders in effect, and where else to turn', () => {
  let t: TestBridge;
  let root: string;
  let inbox: string;
  before(async () => {
    root = tempDir('sb-folders-');
    inbox = join(root, 'inbox');
    mkdirSync(inbox);
    t = await startBridge({ importFolders: [inbox] });
  });
  after(async () => {
    await t.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('GET /guide and the upload topic name this bridge’s import folders and say to upload the bytes otherwise', async () => {
    const guide = await t.client.guide();
    const upload = guide.slice(guide.indexOf('## New study set'), guide.indexOf('## Split'));
    assert.ok(upload.includes(`the library, \`${inbox}\``), upload);
    assert.match(upload, /`;\s+else upload the bytes\./);
    assert.ok(t.bridge.services.guide.topics.upload.includes(`\`${inbox}\``), 'the study_guide topic too');
  });

  it('PATH_NOT_ALLOWED names the allowed folders and the upload that works from anywhere; the upload does', async () => {
    const before = storeDigest(t.bridge.services.store);
    const r = await t.client.raw('POST', '/library/documents/import', {
      body: { path: corpusFile('CAD.pdf'), confirm: true },
    });
    assert.equal(r.status, 403);
    const err = r.json<any>().error;
    assert.equal(err.code, 'PATH_NOT_ALLOWED');
    assert.ok(err.message.includes(inbox), err.message);
    assert.ok(err.message.includes(join(t.dataDir, 'library')) || err.details.allowedFolders.length === 2);
    assert.match(err.message, /Upload its bytes instead, which works from anywhere: POST \/library\/documents\/upload/);
    assert.equal(storeDigest(t.bridge.services.store), before, 'nothing changed');
    const up = await t.client.call('POST /library/documents/upload', {
      bytes: readFileSync(corpusFile('CAD.pdf')),
      query: { filename: 'CAD.pdf', confirm: '1' },
    });
    assert.equal(up.created, true);
  });
});
