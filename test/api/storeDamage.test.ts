// A library.db that SQLite cannot read (a disk fault, a copy cut short) stops the start with one clear refusal
// naming the file, and the failed start changes nothing on disk.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeError } from '../../src/server/errors';
import { createBridge } from '../../src/server/bridge';
import { startBridge, tempDir } from '../helpers/bridgeFixture';
import { projectRoot } from '../helpers/childBridge';

/** A data dir whose library.db holds 20 study sets, then has every page past the first two scrambled. */
async function damagedDataDir(): Promise<string> {
  const dataDir = tempDir('sb-damaged-');
  const t = await startBridge({ dataDir });
  for (let i = 0; i < 20; i++) await t.client.createStudySet(`Set ${i}`);
  await t.bridge.close();
  const path = join(dataDir, 'library.db');
  const bytes = readFileSync(path);
  for (let page = 2; page < bytes.length / 4096 - 1; page++)
    for (let k = 100; k < 4000; k += 7) bytes[page * 4096 + k] ^= 0x5a;
  writeFileSync(path, bytes);
  return dataDir;
}

describe('store: a damaged library.db at start', function () {
  this.timeout(60_000);
  let dataDir: string;
  before(async () => (dataDir = await damagedDataDir()));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('createBridge refuses with STORE_DAMAGED naming the file, and leaves library.db as it was', async () => {
    const before = readFileSync(join(dataDir, 'library.db'));
    const refused = await createBridge({ dataDir, port: 0 }).then(
      () => assert.fail('a damaged library started'),
      (e: unknown) => e,
    );
    assert.ok(refused instanceof BridgeError, String(refused));
    assert.equal(refused.code, 'STORE_DAMAGED');
    assert.match(refused.message, /library\.db is damaged \(SQLite: database disk image is malformed\)/);
    assert.equal(refused.details?.file, join(dataDir, 'library.db'));
    assert.ok(readFileSync(join(dataDir, 'library.db')).equals(before), 'library.db unchanged');
  });

  it('`study-bridge serve` says so in one line, no stack, exit 1, and frees the data dir', () => {
    const serve = () =>
      spawnSync(process.execPath, ['--import', 'tsx', join(projectRoot, 'src/cli.ts'), 'serve', '--data', dataDir], {
        cwd: projectRoot,
        encoding: 'utf8',
        timeout: 45_000,
      });
    const first = serve();
    assert.equal(first.status, 1, first.stderr);
    const lines = first.stderr.trim().split('\n');
    assert.equal(lines.length, 1, first.stderr);
    assert.match(lines[0], /^study-bridge: .*library\.db is damaged .*Move library\.db and library\.journal aside/);
    // The lock went with the failed start: a second try meets the same refusal, not DATA_DIR_LOCKED.
    assert.match(serve().stderr, /library\.db is damaged/);
  });
});
