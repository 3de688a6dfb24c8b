/**
 * A live pairing code read from the journal or library.db must not give the
 * code back (issue 15, case 5): codes are stored as HMAC-SHA-256 keyed by a
 * secret that is in neither file, so the 10^6 six-digit codes cannot be
 * tried offline.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { Store } from '../../src/server/ground/store/store';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** Every 64-hex-digit run in the bytes (SQL text in the journal, TEXT cells in the database). */
const hexRuns = (bytes: Buffer) => new Set(bytes.toString('latin1').match(/[0-9a-f]{64}/g) ?? []);

/** The attack of the report: hash all 10^6 codes the old way and look for them. */
function bruteForcePair(runs: Set<string>): string | undefined {
  for (let n = 0; n < 1_000_000; n++) {
    const code = String(n).padStart(6, '0');
    if (runs.has(sha256Hex(`pair:${code}`))) return code;
  }
  return undefined;
}

describe('pairing and install codes are stored as keyed HMACs, never bare hashes', function () {
  this.timeout(120_000);
  const dataDir = tempDir('sb-codes-');
  let child: ChildBridge | undefined;
  const start = async () => {
    child = await spawnBridge(['--data', dataDir, '--port', '0']);
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    return {
      client: new BridgeClient({ baseUrl: child.baseUrl, token }),
      anonymous: new BridgeClient({ baseUrl: child.baseUrl }),
    };
  };
  const stop = async () => {
    child!.child.kill('SIGTERM'); // a clean stop checkpoints into library.db
    await child!.exited;
    child = undefined;
  };
  after(async () => {
    if (child) await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('neither the journal nor library.db holds the code or sha256(kind:code); brute force finds nothing; the codes work once, also after a restart', async () => {
    let c = await start();
    const pair = await c.client.createPairCode();
    const install = await c.client.createInstallCode();
    const journal = readFileSync(join(dataDir, 'library.journal'));
    await stop();
    const db = readFileSync(join(dataDir, 'library.db'));

    for (const [name, bytes] of [
      ['library.journal', journal],
      ['library.db', db],
    ] as const) {
      const text = bytes.toString('latin1');
      assert.ok(text.includes('access_codes') || name === 'library.db', 'the journal holds the code rows');
      assert.ok(!text.includes(`"${pair.code}"`) && !text.includes(`pair:${pair.code}`), `${name}: no pair code`);
      assert.ok(!text.includes(install.code), `${name}: no install code`);
      const runs = hexRuns(bytes);
      assert.ok(runs.size >= 2, `${name} holds the stored digests`);
      assert.ok(!runs.has(sha256Hex(`pair:${pair.code}`)), `${name}: no sha256("pair:"+code)`);
      assert.ok(!runs.has(sha256Hex(`install:${install.code}`)), `${name}: no sha256("install:"+code)`);
      assert.equal(bruteForcePair(runs), undefined, `${name}: the 10^6 codes hashed the old way find nothing`);
    }

    const secret = readFileSync(join(dataDir, 'secret'), 'utf8').trim();
    assert.equal(statSync(join(dataDir, 'secret')).mode & 0o777, 0o600);
    for (const bytes of [journal, db])
      assert.ok(!bytes.toString('latin1').includes(secret), 'the HMAC key is in neither file');

    // The key lives in the secret file, so the codes survive a restart; each works exactly once.
    c = await start();
    const paired = await c.anonymous.pair(pair.code, 'Laptop');
    assert.match(paired.token, /^sbt0\./);
    assert.equal((await new BridgeClient({ baseUrl: child!.baseUrl, token: paired.token }).status()).authorized, true);
    const again = await c.anonymous.raw('POST', '/pair', { body: { code: pair.code, deviceName: 'Laptop' } });
    assert.equal(again.status, 403);
    assert.equal(again.json<{ error: { code: string } }>().error.code, 'PAIRING_FAILED');
    assert.equal((await c.anonymous.raw('GET', '/install', { query: { code: install.code } })).status, 200);
    assert.equal((await c.anonymous.raw('GET', '/install', { query: { code: install.code } })).status, 403);
    await stop();
  });

  it('a row stored the old way (bare sha256) is not honoured', async () => {
    const c = await start();
    // Issue a pair code, then rewrite its row as an older build stored it (through the journal, like any write).
    const { code } = await c.client.createPairCode();
    await stop();
    const store = await Store.open(dataDir, { idleCheckpointMs: 0 });
    await store.write((tx) =>
      tx.run(`UPDATE access_codes SET code_hash = ? WHERE kind = 'pair'`, [sha256Hex(`pair:${code}`)]),
    );
    await store.close();
    const c2 = await start();
    const res = await c2.anonymous.raw('POST', '/pair', { body: { code, deviceName: 'Old' } });
    assert.equal(res.status, 403);
  });
});
