import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdtempSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeError } from '../../src/server/errors';
import { acquireDataDirLock } from '../../src/server/ground/store/lock';

/** The lock a bridge started on a full disk takes is a symbolic link to its pid (no data block needed). */
describe('data dir lock written as a link (full disk)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sb-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a link lock naming a live process refuses the data dir with DATA_DIR_LOCKED and that pid', () => {
    symlinkSync(String(process.ppid), join(dir, 'library.lock'));
    assert.throws(
      () => acquireDataDirLock(dir),
      (e: unknown) => e instanceof BridgeError && e.code === 'DATA_DIR_LOCKED' && e.details?.pid === process.ppid,
    );
    assert.equal(readlinkSync(join(dir, 'library.lock')), String(process.ppid), 'the holder keeps its lock');
  });

  it('a link lock of a dead process is taken over (as a file holding our pid) and released', () => {
    symlinkSync('2147483646', join(dir, 'library.lock'));
    const lock = acquireDataDirLock(dir);
    assert.equal(lstatSync(join(dir, 'library.lock')).isSymbolicLink(), false);
    lock.release();
    assert.equal(existsSync(join(dir, 'library.lock')), false);
  });
});
