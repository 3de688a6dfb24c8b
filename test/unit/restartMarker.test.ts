import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearRestarting, markRestarting, restartingHost } from '../../src/extension/restartMarker';

/** The marker a hosting window leaves while it restarts its bridge, so attached windows wait instead of taking over. */
describe('bridge.restarting (a host restarting for a setting change)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sb-restart-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the live restarting process, private to its owner, until that process clears it', () => {
    assert.equal(restartingHost(dir), undefined);
    markRestarting(dir);
    assert.equal(restartingHost(dir), process.pid);
    assert.equal(statSync(join(dir, 'bridge.restarting')).mode & 0o777, 0o600);
    clearRestarting(dir, process.pid + 1); // another window's clear leaves ours
    assert.equal(restartingHost(dir), process.pid);
    clearRestarting(dir);
    assert.equal(existsSync(join(dir, 'bridge.restarting')), false);
    assert.equal(restartingHost(dir), undefined);
  });

  it('is ignored when its process is dead, when it is older than 30 s, or when it is not ours to read', () => {
    markRestarting(dir, 2147483646);
    assert.equal(restartingHost(dir), undefined, 'a dead process');
    writeFileSync(join(dir, 'bridge.restarting'), JSON.stringify({ pid: process.pid, at: Date.now() - 31_000 }));
    assert.equal(restartingHost(dir), undefined, 'a stale marker');
    writeFileSync(join(dir, 'bridge.restarting'), '{"pid":');
    assert.equal(restartingHost(dir), undefined, 'half a file');
  });
});
