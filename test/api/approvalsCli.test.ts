import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { BridgeClient } from '../../src/client/bridgeClient';
import { tempDir } from '../helpers/bridgeFixture';
import { cliPath, spawnBridge } from '../helpers/childBridge';

const run = promisify(execFile);

/** `serve --approvals`: headless the default is never (CI and scripts keep working). Needs `npm run build`. */
describe('headless CLI: serve --approvals destructive|all-writes|never', function () {
  this.timeout(60_000);

  it('default never; --approvals destructive is the policy /capabilities reports; a bad value exits 2', async () => {
    const dataDir = tempDir('sb-cli-approvals-');
    try {
      const plain = await spawnBridge(['--data', dataDir, '--port', '0']);
      assert.equal(((await BridgeClient.fromDataDir(dataDir).capabilities()) as any).approvals.policy, 'never');
      plain.child.kill('SIGTERM');
      assert.equal((await plain.exited).code, 0);
      const strict = await spawnBridge(['--data', dataDir, '--port', '0', '--approvals', 'destructive']);
      assert.equal(((await BridgeClient.fromDataDir(dataDir).capabilities()) as any).approvals.policy, 'destructive');
      strict.child.kill('SIGTERM');
      assert.equal((await strict.exited).code, 0);
      await assert.rejects(
        run(process.execPath, [cliPath, 'serve', '--data', dataDir, '--port', '0', '--approvals', 'sometimes']),
        (e: any) => {
          assert.equal(e.code, 2);
          assert.match(e.stderr, /bad --approvals sometimes: destructive, all-writes or never/);
          return true;
        },
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
