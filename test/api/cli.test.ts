import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BridgeClient } from '../../src/client/bridgeClient';
import { createBridge, DEFAULT_PORT, LAST_DEFAULT_PORT } from '../../src/server/bridge';
import { tempDir } from '../helpers/bridgeFixture';
import { cliPath, spawnBridge } from '../helpers/childBridge';
import { corpusFile } from '../unit/pdfCorpus';

const run = promisify(execFile);

describe('headless CLI: study-bridge serve / install-code / pair-code', function () {
  this.timeout(60_000);

  it('serves, writes bridge.json and token (600), refuses a second server on the same dir, exits 0 on SIGTERM and cleans up', async () => {
    const dataDir = tempDir('sb-cli-');
    const a = await spawnBridge(['--data', dataDir, '--port', '0']);
    const info = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8'));
    assert.equal(info.baseUrl, a.baseUrl);
    assert.equal(info.pid, a.child.pid);
    assert.match(info.instanceNonce, /^[0-9a-f]{24}$/);
    assert.equal(typeof info.version, 'string');
    for (const f of ['bridge.json', 'token']) assert.equal(statSync(join(dataDir, f)).mode & 0o777, 0o600, f);
    const client = BridgeClient.fromDataDir(dataDir);
    assert.equal((await client.status()).instanceNonce, info.instanceNonce);

    await assert.rejects(spawnBridge(['--data', dataDir, '--port', '0']), (e: any) => {
      assert.equal(e.code, 3);
      assert.match(e.stderr, new RegExp(`already served by process ${a.child.pid}`));
      return true;
    });

    const install = await run(process.execPath, [cliPath, 'install-code', '--data', dataDir]);
    assert.match(install.stdout, /curl -sSL 'http:\/\/127\.0\.0\.1:\d+\/bridge\/v1\/install\?code=[\w-]+' \| sh/);
    assert.match(install.stdout, /claude mcp add --transport http/);
    assert.match(install.stdout, /a write token named "installed agent"/);
    const readInstall = await run(process.execPath, [
      cliPath,
      'install-code',
      '--data',
      dataDir,
      '--scope',
      'read',
      '--name',
      'Reader',
    ]);
    const readCode = /install\?code=([\w-]+)'/.exec(readInstall.stdout)![1];
    const script = await (await fetch(`${a.baseUrl}/install?code=${readCode}`)).text();
    const readToken = /TOKEN='(sbt0\.[\w-]+)'/.exec(script)![1];
    const denied = await new BridgeClient({ baseUrl: a.baseUrl, token: readToken }).raw('POST', '/library/study-sets', {
      body: { title: 'x', confirm: true },
    });
    assert.equal(denied.json<any>().error.code, 'SCOPE_REQUIRED');
    assert.deepEqual(
      (await client.tokens.list()).map((x) => [x.name, x.scope]),
      [['Reader', 'read']],
    );
    await assert.rejects(
      run(process.execPath, [cliPath, 'install-code', '--data', dataDir, '--scope', 'owner']),
      /bad --scope owner/,
    );
    const pair = await run(process.execPath, [cliPath, 'pair-code', '--data', dataDir]);
    const code = /Pairing code: (\d{6})/.exec(pair.stdout)?.[1];
    assert.ok(code);
    assert.match((await new BridgeClient({ baseUrl: a.baseUrl }).pair(code, 'cli test')).token, /^sbt0\./);

    a.child.kill('SIGTERM');
    assert.equal((await a.exited).code, 0);
    assert.ok(!existsSync(join(dataDir, 'bridge.json')), 'bridge.json removed');
    assert.ok(!existsSync(join(dataDir, 'library.lock')), 'lock released');
    assert.ok(existsSync(join(dataDir, 'library.db')), 'checkpoint written on close');
  });

  it('install-code without a running bridge explains itself', async () => {
    await assert.rejects(run(process.execPath, [cliPath, 'install-code', '--data', tempDir()]), (e: any) => {
      assert.match(e.stderr, /no running bridge found/);
      return true;
    });
  });

  it('--import-folders A:B: a PDF in B is imported by path; a folder not named is refused with PATH_NOT_ALLOWED naming A and B', async () => {
    const dataDir = tempDir('sb-cli-');
    const [a, b, other] = [tempDir('sb-imp-a-'), tempDir('sb-imp-b-'), tempDir('sb-imp-x-')];
    copyFileSync(corpusFile('CAD.pdf'), join(b, 'CAD.pdf'));
    copyFileSync(corpusFile('CAD.pdf'), join(other, 'CAD.pdf'));
    const child = await spawnBridge(['--data', dataDir, '--port', '0', '--import-folders', `${a}:${b}`]);
    try {
      const client = BridgeClient.fromDataDir(dataDir);
      const ok = await client.raw('POST', '/library/documents/import', {
        body: { path: join(b, 'CAD.pdf'), confirm: true },
      });
      assert.equal(ok.status, 200, ok.text());
      assert.equal(ok.json<any>().created, true);
      const refused = await client.raw('POST', '/library/documents/import', {
        body: { path: join(other, 'CAD.pdf'), confirm: true },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.json<any>().error.code, 'PATH_NOT_ALLOWED');
      const allowed: string[] = refused.json<any>().error.details.allowedFolders;
      assert.deepEqual(
        allowed.slice(1).map((f) => f.split('/').pop()),
        [a, b].map((f) => f.split('/').pop()),
      );
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });

  it('--no-premium and STUDY_BRIDGE_PREMIUM=0 turn premium off', async () => {
    for (const [args, env] of [
      [['--no-premium'], {}],
      [[], { STUDY_BRIDGE_PREMIUM: '0' }],
    ] as const) {
      const dataDir = tempDir('sb-cli-');
      const b = await spawnBridge(['--data', dataDir, '--port', '0', ...args], env);
      const res = await BridgeClient.fromDataDir(dataDir).raw('POST', '/library/study-sets', {
        body: { title: 'x', confirm: true },
      });
      assert.equal(res.status, 403);
      assert.equal(res.json<any>().error.code, 'MAX_REQUIRED');
      b.child.kill('SIGTERM');
      await b.exited;
    }
  });

  it('without --port: 42380, else the next free port up to 42399', async () => {
    const a = await createBridge({ dataDir: tempDir() });
    const b = await createBridge({ dataDir: tempDir() });
    try {
      for (const p of [a.port, b.port]) assert.ok(p >= DEFAULT_PORT && p <= LAST_DEFAULT_PORT, String(p));
      assert.ok(b.port > a.port);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
