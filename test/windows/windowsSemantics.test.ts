import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { buildApkg, crtDaysAgo } from '../helpers/ankiPackageBuilder';
import { makePng } from '../api/cardImagesFixture';
import { profileDir, startWineBridge, wineNode, winPath, type WineBridge } from './wineBridge';
import { cliPath } from '../helpers/childBridge';

/**
 * The bridge on Windows semantics (Node for Windows under Wine, see
 * wineBridge.ts), driven over HTTP from Linux: durability across kill -9 (a
 * held library.db: heldCheckpoint.test.ts), device names and
 * trailing dots in uploads, confinement against `..\` and `C:\`, an .apkg
 * whose media map names `..\..\x`, the data dir lock, and /status privacy.
 */

interface ErrorBody {
  error: { code: string; message: string };
}

async function pdf(text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  page.drawText(text, { x: 20, y: 150, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save();
}

async function refused(
  client: BridgeClient,
  method: 'GET' | 'POST',
  path: string,
  opts: { body?: unknown; bytes?: Uint8Array; query?: Record<string, string> },
  status: number,
  code: string,
): Promise<string> {
  const r = await client.raw(method, path, opts);
  assert.equal(r.status, status, `${method} ${path} ${JSON.stringify(opts.query ?? opts.body ?? '')}: ${r.text()}`);
  const body = r.json<ErrorBody>();
  assert.equal(body.error.code, code, r.text());
  return body.error.message;
}

/** Every file and folder under `dir`, relative. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      out.push(p);
      if (e.isDirectory()) walk(p);
    }
  };
  if (existsSync(dir)) walk('');
  return out.sort();
}

describe('Windows semantics (Node for Windows under Wine)', function () {
  this.timeout(600_000);
  let dataDir: string;
  let b: WineBridge;

  before(async () => {
    dataDir = tempDir('sb-win-');
    b = await startWineBridge(dataDir);
  });
  after(async () => {
    await b?.kill9();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('/status warns truly (a data dir outside the profile) and never about POSIX modes', async () => {
    const warnings = ((await b.owner.status()) as { warnings?: string[] }).warnings ?? [];
    assert.ok(
      warnings.some((w) => /outside your user profile .*icacls/.test(w)),
      `a data dir on Z:\\tmp is readable by other users: ${JSON.stringify(warnings)}`,
    );
    assert.ok(!warnings.some((w) => /chmod|0600|0700|file system keeps no modes/.test(w)), JSON.stringify(warnings));
    // The library was still written: Windows reports 0666 whatever chmod asked for, and that is no failure.
    assert.equal(statSync(join(dataDir, 'token')).isFile(), true);
  });

  it('a data dir inside the user profile gets no privacy warning', async () => {
    const profile = profileDir();
    const inProfile = join(profile.unix, `sb-win-${process.pid}`);
    mkdirSync(inProfile, { recursive: true });
    // As Windows names it (C:\users\<name>\…), not through Wine's Z: view of the same folder.
    const other = await startWineBridge(inProfile, [], `${profile.windows}\\sb-win-${process.pid}`);
    try {
      const warnings = ((await other.owner.status()) as { warnings?: string[] }).warnings ?? [];
      assert.ok(!warnings.some((w) => /profile|chmod|private/.test(w)), JSON.stringify(warnings));
    } finally {
      await other.kill9();
      rmSync(inProfile, { recursive: true, force: true });
    }
  });

  it('uploads named with a device name or a trailing dot are refused with a clear code; nothing is stored', async () => {
    const bytes = await pdf('device names');
    const library = join(dataDir, 'library');
    const before = tree(library);
    for (const filename of ['CON.pdf', 'nul.pdf', 'Aux.PDF', 'com1.pdf', 'lpt1 .pdf', 'book.pdf.', 'book.pdf ']) {
      const msg = await refused(
        b.owner,
        'POST',
        '/library/documents/upload',
        { bytes, query: { filename, confirm: '1' } },
        422,
        'INVALID_FILENAME',
      );
      assert.match(msg, /device name|dot or a space|plain file name/, filename);
    }
    for (const folder of ['aux', 'notes/CON', 'draft.', '..\\outside', 'C:\\x', 'a\\..\\..\\b']) {
      await refused(
        b.owner,
        'POST',
        '/library/documents/upload',
        { bytes, query: { filename: 'ok.pdf', folder, confirm: '1' } },
        422,
        'INVALID_FOLDER',
      );
    }
    assert.deepEqual(tree(library), before, 'no file, folder or spool leftover');
  });

  it('two names that differ only in case never both land in one folder', async () => {
    const first = await b.owner.request<{ filename: string }>('POST', '/library/documents/upload', {
      bytes: await pdf('first book'),
      query: { filename: 'Book.pdf', confirm: '1' },
    });
    assert.equal(first.filename, 'Book.pdf');
    const second = await b.owner.request<{ filename: string; warnings: string[] }>(
      'POST',
      '/library/documents/upload',
      { bytes: await pdf('second book'), query: { filename: 'book.PDF', confirm: '1' } },
    );
    assert.equal(second.filename, 'book (2).PDF');
    assert.deepEqual(
      readdirSync(join(dataDir, 'library'))
        .filter((f) => !f.startsWith('.'))
        .sort(),
      ['Book.pdf', 'book (2).PDF'],
    );
  });

  it('confinement: `..\\`, `C:\\`, UNC, device and drive-relative paths are refused', async () => {
    const outside = join(dirname(dataDir), `sb-win-outside-${process.pid}.pdf`);
    writeFileSync(outside, await pdf('outside'));
    try {
      const lib = winPath(join(dataDir, 'library'));
      for (const [path, status, code] of [
        ['C:\\windows\\win.ini', 403, 'PATH_NOT_ALLOWED'],
        ['c:\\WINDOWS\\system32\\..\\win.ini', 403, 'PATH_NOT_ALLOWED'],
        [`${lib}\\..\\..\\${outside.split('/').pop()}`, 403, 'PATH_NOT_ALLOWED'],
        [winPath(outside), 403, 'PATH_NOT_ALLOWED'],
        ['..\\..\\x.pdf', 422, 'INVALID_PATH'],
        ['C:x.pdf', 422, 'INVALID_PATH'],
        ['\\\\.\\PhysicalDrive0', 422, 'INVALID_PATH'],
        [`${lib}\\CON`, 422, 'INVALID_PATH'],
        [`${lib}\\nul.pdf`, 422, 'INVALID_PATH'],
      ] as const) {
        await refused(b.owner, 'POST', '/library/documents/import', { body: { path, confirm: true } }, status, code);
      }
      // Inside the library, in another case than on disk: the same folder on Windows.
      const inside = join(dataDir, 'library', 'Inside.pdf');
      writeFileSync(inside, await pdf('inside'));
      const ok = await b.owner.raw('POST', '/library/documents/import', {
        body: { path: winPath(inside).toUpperCase(), confirm: true },
      });
      assert.notEqual(ok.status, 403, ok.text());
      assert.ok(ok.status < 300, ok.text());
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('bundle files: `..\\`, `C:\\`, UNC and device names are refused; a file of the bundle is served', async () => {
    const doc = await b.owner.request<{ bookmd5: string }>('POST', '/library/documents/upload', {
      bytes: await pdf('bundle source text for a card'),
      query: { filename: 'bundle.pdf', confirm: '1' },
    });
    const set = await b.owner.createStudySet('Bundle set');
    let bundleId = '';
    for (let i = 0; i < 100 && !bundleId; i++) {
      const r = await b.owner.raw('POST', '/bundles/prepare', {
        body: { topicid: set.topicid, bookmd5: doc.bookmd5, segments: [{ startPage: 1, endPage: 1 }] },
      });
      if (r.status < 300) bundleId = r.json<{ bundleId: string }>().bundleId;
      else await new Promise((res) => setTimeout(res, 300)); // extraction still running
    }
    assert.ok(bundleId, 'a bundle was prepared');
    for (let i = 0; i < 200; i++) {
      const r = await b.owner.raw('GET', `/bundles/${bundleId}/files`, { query: { path: 'source.json' } });
      if (r.status === 200) break;
      await new Promise((res) => setTimeout(res, 300));
    }
    for (const path of [
      '..\\..\\library.db',
      '..\\library.lock',
      'C:\\windows\\win.ini',
      '\\\\server\\share\\x',
      'CON',
      'TASK.md.',
      '\\TASK.md',
    ]) {
      await refused(b.owner, 'GET', `/bundles/${bundleId}/files`, { query: { path } }, 422, 'INVALID_PATH');
    }
    const ok = await b.owner.raw('GET', `/bundles/${bundleId}/files`, { query: { path: 'TASK.md' } });
    assert.equal(ok.status, 200, ok.text());
  });

  it('an .apkg whose media map names `..\\..\\x.png` imports without that picture and writes nothing outside', async () => {
    const png = await makePng(8, 8, (ctx) => ctx.fillRect(0, 0, 8, 8));
    const bytes = await buildApkg({
      crt: crtDaysAgo(3),
      models: [{ name: 'Basic', fields: ['Front', 'Back'] }],
      decks: ['Evil'],
      notes: [
        { guid: 'evil-1', model: 'Basic', fields: ['escape', '<img src="..\\..\\x.png">'], cards: [{}] },
        { guid: 'evil-2', model: 'Basic', fields: ['device', '<img src="nul.png">'], cards: [{}] },
        { guid: 'good-1', model: 'Basic', fields: ['fine', '<img src="ok.png">'], cards: [{}] },
      ],
      media: { '..\\..\\x.png': png, 'nul.png': png, 'ok.png': png },
    });
    const res = await b.owner.raw('POST', '/decks/import', { bytes, query: { filename: 'evil.apkg', confirm: '1' } });
    assert.equal(res.status, 200, res.text());
    const body = res.json<{ media: number; skipped: Array<{ kind: string; ref: string; reason: string }> }>();
    const skipped = body.skipped.filter((s) => s.kind === 'media').map((s) => s.ref);
    assert.deepEqual(skipped.sort(), ['..\\..\\x.png', 'nul.png']);
    for (const dir of [dataDir, dirname(dataDir), dirname(dirname(dataDir)), process.cwd()])
      assert.equal(existsSync(join(dir, 'x.png')), false, `no x.png in ${dir}`);
  });

  it('kill -9 during writes, then restart: every acknowledged card is there', async () => {
    const set = await b.owner.createStudySet('Crash set');
    const acked = new Map<string, string>();
    let stop = false;
    let n = 0;
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const title = `card ${n++}`;
        try {
          const r = await b.owner.request<{ noteid: string; persisted: boolean }>(
            'POST',
            `/study-sets/${set.topicid}/notes`,
            { body: { parentNoteId: set.rootNoteId, title, text: `body of ${title}`, confirm: true } },
          );
          if (r.persisted) acked.set(r.noteid, title);
        } catch {
          return; // the bridge died under this request: unacknowledged
        }
      }
    });
    while (acked.size < 40) await new Promise((r) => setTimeout(r, 20));
    await b.kill9(); // requests in flight
    stop = true;
    await Promise.all(writers);
    assert.ok(existsSync(join(dataDir, 'library.lock')), 'the dead process left its lock');
    b = await startWineBridge(dataDir); // takes the stale lock over
    const tree = await b.owner.cards.tree(set.topicid);
    const have = new Map(tree.nodes.map((x) => [x.noteid, x.title]));
    const lost = [...acked].filter(([id, title]) => have.get(id) !== title);
    assert.deepEqual(lost, [], `${acked.size} acknowledged, ${lost.length} lost`);
  });

  it('the data dir lock: a second bridge on the same data dir is refused, naming the holder', async () => {
    await assert.rejects(
      wineNode([winPath(cliPath), 'serve', '--data', winPath(dataDir), '--port', '0'], /listening on/),
      (e: Error) => /already served by process \d+/.test(e.message),
    );
    await b.owner.status(); // the first bridge still serves
  });
});
