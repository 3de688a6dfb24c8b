import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { checkNode } from '../../bin/check-node.js';

const ROOT = resolve(__dirname, '..', '..');

describe('Node floor (bin/check-node.js)', () => {
  it('refuses below 20, warns from 20 to 22.12, stays quiet from 22.13', () => {
    for (const v of ['v16.20.2', 'v18.20.8', 'v19.9.0']) {
      const r = checkNode(v);
      assert.equal(r.level, 'refuse', v);
      assert.match(r.message, new RegExp(`needs Node\\.js 22\\.13 or newer \\(this is ${v.replace(/\./g, '\\.')}\\)`));
      assert.doesNotMatch(r.message, /\n/);
    }
    for (const v of ['v20.0.0', 'v20.20.2', 'v21.7.3', 'v22.12.0']) assert.equal(checkNode(v).level, 'warn', v);
    for (const v of ['v22.13.0', 'v22.23.5', 'v24.22.3', 'v30.0.0'])
      assert.deepEqual(checkNode(v), { level: 'ok', message: '' });
  });

  it("prints this Node's verdict in at most one line, and never stops a supported Node", () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'check-node.js')], { encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.split('\n').filter(Boolean).length <= 1, r.stderr);
    assert.equal(r.stderr.trim(), checkNode(process.version).message);
  });
});
