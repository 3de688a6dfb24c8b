import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge } from '../helpers/childBridge';
import { corpusFile } from '../unit/pdfCorpus';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

describe('crash leftovers: start-up sweeps .part/temp files and adopts a PDF whose row never committed', function () {
  this.timeout(120_000);

  it('.part and temp files gone; the orphan PDF is the book (same md5); re-uploading it answers that book, no "name (2).pdf"', async () => {
    const dataDir = tempDir('sb-leftovers-');
    const first = await spawnBridge(['--data', dataDir, '--port', '0']);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    first.child.kill('SIGKILL');
    await first.exited;

    // What a crash mid-upload leaves: a half-written .part, and a PDF renamed in whose row was never journaled.
    const lib = join(dataDir, 'library');
    mkdirSync(join(lib, 'papers'), { recursive: true });
    writeFileSync(join(lib, '.upload-0123456789abcdef.part'), Buffer.from('%PDF-1.7\nhalf an upload'));
    writeFileSync(join(lib, 'papers', 'old.pdf.4242.part'), Buffer.from('%PDF-1.4\nan older .part'));
    writeFileSync(join(lib, 'papers', 'x.pdf.4242.1.tmp'), 'temp');
    mkdirSync(join(dataDir, 'cache', 'pages'), { recursive: true });
    writeFileSync(join(dataDir, 'cache', 'pages', 'seg.4242.2.tmp'), 'temp');
    writeFileSync(join(dataDir, 'library.db.redo.4242.3.tmp'), 'temp');
    const cad = readFileSync(corpusFile('CAD.pdf'));
    writeFileSync(join(lib, 'papers', 'CAD.pdf'), cad);
    // Not PDFs, or not whole: left alone.
    writeFileSync(join(lib, 'notes.pdf'), 'not a pdf');

    const second = await spawnBridge(['--data', dataDir, '--port', '0']);
    try {
      const client = new BridgeClient({ baseUrl: second.baseUrl, token });
      for (const f of [
        'library/.upload-0123456789abcdef.part',
        'library/papers/old.pdf.4242.part',
        'library/papers/x.pdf.4242.1.tmp',
        'cache/pages/seg.4242.2.tmp',
        'library.db.redo.4242.3.tmp',
      ]) {
        assert.equal(existsSync(join(dataDir, f)), false, `${f} removed`);
      }
      const id = md5(cad);
      const sync = await client.call('GET /documents/{id}/sync-status', { params: { id }, query: { verifyHash: '1' } });
      assert.deepEqual([sync.path, sync.hashVerification], ['papers/CAD.pdf', 'verified']);
      const outline = await client.call('GET /documents/{id}/outline', { params: { id } });
      assert.equal(outline.pageCount, 7);

      const again = await client.call('POST /library/documents/upload', {
        bytes: cad,
        query: { filename: 'CAD.pdf', folder: 'papers', confirm: '1' },
      });
      assert.deepEqual(
        [again.bookmd5, again.created, again.alreadyPresent, again.filename, again.folder],
        [id, false, true, 'CAD.pdf', 'papers'],
      );
      assert.deepEqual(readdirSync(join(lib, 'papers')).sort(), ['CAD.pdf']);
      assert.ok(existsSync(join(lib, 'notes.pdf')), 'a file that is not a PDF is not ours to remove');
      const pages = await client.call('GET /documents/{id}/pages', { params: { id }, query: { start: '1' } });
      assert.match(pages.pages[0].text, /\S/);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
