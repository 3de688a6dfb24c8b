import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BridgeError } from '../../src/server/errors';
import { checkFilename, checkFolder } from '../../src/server/domain/library/libraryPaths';
import { checkAllowedFile } from '../../src/server/domain/library/importPath';
import { checkMediaName } from '../../src/server/api/ankiconnect/ankiMedia';
import {
  caseFoldKey,
  escapesFolder,
  isDevicePath,
  isWithin,
  portableNameProblem,
  portableRelativePathProblem,
} from '../../src/server/domain/security/portableNames';
import { outsideProfile, windowsPrivacyWarnings } from '../../src/server/domain/security/windowsPrivacy';

const refusedWith = (code: string) => (e: unknown) => e instanceof BridgeError && e.code === code;

/** Windows' naming rules, applied on every platform so a library made here opens there. */
describe('portable names (Windows rules on every platform)', () => {
  it('device names are refused in any case, with an extension, or with spaces before the dot', () => {
    for (const n of ['CON', 'con', 'Nul.pdf', 'aux.tar.gz', 'COM1', 'lpt9.png', 'com¹.txt', 'PRN .pdf', 'CONOUT$']) {
      assert.match(portableNameProblem(n) ?? '', /device name/, n);
    }
    for (const n of ['CONSOLE.pdf', 'con-notes.pdf', 'COM10', 'LPT', 'nullable.txt', 'icon.png']) {
      assert.equal(portableNameProblem(n), undefined, n);
    }
  });

  it('a trailing dot or space is refused (Windows strips it and names another file)', () => {
    for (const n of ['book.pdf.', 'book.pdf ', 'notes.', '...']) assert.match(portableNameProblem(n) ?? '', /dot/, n);
  });

  it('separators, drive colons and the characters Windows forbids are refused', () => {
    for (const n of [
      'a/b.pdf',
      'a\\b.pdf',
      'C:x.pdf',
      'a*b',
      'what?.pdf',
      'a<b>.pdf',
      'a|b',
      'say "hi"',
      'tab\there',
    ]) {
      assert.ok(portableNameProblem(n), n);
    }
    assert.ok(portableNameProblem('.'));
    assert.ok(portableNameProblem('..'));
    assert.ok(portableNameProblem(''));
    assert.ok(portableNameProblem('x'.repeat(256)));
    assert.equal(portableNameProblem('x'.repeat(255)), undefined);
    assert.equal(portableNameProblem('Été — 学习.pdf'), undefined);
  });

  it('case-insensitive twins share one fold key, Unicode included', () => {
    assert.equal(caseFoldKey('Book.PDF'), caseFoldKey('book.pdf'));
    assert.equal(caseFoldKey('Été.pdf'), caseFoldKey('été.pdf'));
    // NFD and NFC spellings of one name are one file on macOS and in the library.
    assert.equal(caseFoldKey('e\u0301te\u0301.pdf'), caseFoldKey('été.pdf'));
    assert.notEqual(caseFoldKey('book1.pdf'), caseFoldKey('book2.pdf'));
  });

  it('drive letters, UNC, device and rooted paths escape a folder; relative ones do not', () => {
    for (const p of [
      'C:\\x',
      'c:x',
      'C:/x',
      '\\\\server\\share\\x',
      '\\x',
      '/etc/passwd',
      '..\\..\\x',
      'a/../../x',
      'a\\..',
    ]) {
      assert.equal(escapesFolder(p), true, p);
    }
    for (const p of ['source.json', 'sub/dir/file.md', 'sub\\file.md', '..x', 'x..'])
      assert.equal(escapesFolder(p), false, p);
    assert.match(portableRelativePathProblem('sub\\CON\\x.md') ?? '', /"CON": .*device/);
    assert.match(portableRelativePathProblem('sub/notes./x.md') ?? '', /"notes\.": .*dot/);
    assert.equal(portableRelativePathProblem('sub\\x.md'), undefined);
  });

  it('device namespace paths are told from long-path prefixes', () => {
    assert.equal(isDevicePath('\\\\.\\PhysicalDrive0'), true);
    assert.equal(isDevicePath('\\\\.\\pipe\\x'), true);
    assert.equal(isDevicePath('//./COM1'), true);
    assert.equal(isDevicePath('\\\\?\\GLOBALROOT\\Device\\x'), true);
    assert.equal(isDevicePath('\\\\?\\C:\\Users\\a\\x.pdf'), false);
    assert.equal(isDevicePath('\\\\?\\UNC\\server\\share\\x.pdf'), false);
    assert.equal(isDevicePath('\\\\server\\share\\x.pdf'), false);
  });

  it('containment on Windows ignores case and separator style; on POSIX it does not ignore case', () => {
    assert.equal(isWithin('C:\\Users\\Ann\\Library', 'c:\\users\\ann\\library\\a.pdf', 'win32'), true);
    assert.equal(isWithin('C:\\Users\\Ann\\Library', 'C:/Users/Ann/Library/sub/a.pdf', 'win32'), true);
    assert.equal(isWithin('C:\\Users\\Ann\\Library', 'C:\\Users\\Ann\\Library2\\a.pdf', 'win32'), false);
    assert.equal(isWithin('C:\\Users\\Ann\\Library', 'C:\\Users\\Ann\\Library\\..\\x.pdf', 'win32'), false);
    assert.equal(isWithin('C:\\Users\\Ann\\Library', 'D:\\Users\\Ann\\Library\\a.pdf', 'win32'), false);
    assert.equal(isWithin('\\\\srv\\share\\lib', '\\\\SRV\\Share\\Lib\\a.pdf', 'win32'), true);
    assert.equal(isWithin('/home/ann/lib', '/home/ann/Lib/a.pdf', 'linux'), false);
    assert.equal(isWithin('/home/ann/lib', '/home/ann/lib/a.pdf', 'linux'), true);
  });
});

describe('portable names where names enter the library', () => {
  it('uploads: a device name or a trailing dot is refused with INVALID_FILENAME and says why', () => {
    assert.throws(
      () => checkFilename('CON.pdf'),
      (e: unknown) => refusedWith('INVALID_FILENAME')(e) && /device name/.test((e as Error).message),
    );
    assert.throws(() => checkFilename('nul'), refusedWith('INVALID_FILENAME'));
    assert.throws(() => checkFilename('book.pdf.'), refusedWith('INVALID_FILENAME'));
    assert.throws(() => checkFilename('C:book.pdf'), refusedWith('INVALID_FILENAME'));
    assert.equal(checkFilename('Console notes.pdf'), 'Console notes.pdf');
  });

  it('library folders: each level follows the rules (INVALID_FOLDER)', () => {
    assert.throws(() => checkFolder('books/aux'), refusedWith('INVALID_FOLDER'));
    assert.throws(() => checkFolder('books/draft.'), refusedWith('INVALID_FOLDER'));
    assert.throws(() => checkFolder('books\\..\\x'), refusedWith('INVALID_FOLDER'));
    assert.throws(() => checkFolder('C:/x'), refusedWith('INVALID_FOLDER'));
    assert.equal(checkFolder('books/2024'), 'books/2024');
  });

  it('AnkiConnect media: device names and trailing dots are refused like separators', () => {
    for (const n of ['nul.png', 'pic.png.', '..\\..\\x', 'C:x.png', 'a:b.png'])
      assert.throws(() => checkMediaName(n), n);
    assert.equal(checkMediaName('pic.png'), 'pic.png');
  });

  it('import paths: a device or a level named like one is INVALID_PATH, relative ones too', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-portable-'));
    try {
      const config = { libraryDir: path.join(dir, 'library'), importFolders: [dir] };
      for (const p of ['\\\\.\\PhysicalDrive0', path.join(dir, 'CON'), path.join(dir, 'nul.pdf'), '..\\x.pdf', 'x.pdf'])
        assert.throws(() => checkAllowedFile(config, p, 'PDFs'), refusedWith('INVALID_PATH'), p);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('privacy on Windows: the user profile instead of file modes', () => {
  const profile = 'C:\\Users\\Ann';
  it('a data dir under the profile gives no warning, whatever the case of its spelling', () => {
    assert.equal(outsideProfile('c:\\users\\ann\\AppData\\Roaming\\study-bridge', profile), undefined);
    assert.deepEqual(windowsPrivacyWarnings('C:\\Users\\Ann\\sb', 'C:\\Users\\Ann\\sb', profile), []);
  });

  it('a data dir or a bundles folder outside it is warned about, with the icacls command', () => {
    const w = windowsPrivacyWarnings('D:\\study', 'C:\\Users\\Ann\\Documents', profile);
    assert.equal(w.length, 1);
    assert.match(w[0], /^The data dir D:\\study is outside your user profile .*icacls "D:\\study"/);
    const b = windowsPrivacyWarnings('C:\\Users\\Ann\\sb', 'C:\\Shared', profile);
    assert.equal(b.length, 1);
    assert.match(b[0], /^The bundles folder C:\\Shared\\bundles is outside/);
    assert.match(outsideProfile('C:\\Users\\Public\\sb', profile) ?? '', /outside your user profile/);
  });
});
