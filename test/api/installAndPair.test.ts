import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { startBridge, tempDir, type TestBridge } from '../helpers/bridgeFixture';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('install codes (GET /install, POST /install/code)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge({ limits: { installCodeMs: 3000 } })));
  after(() => t.stop());

  it("the script, run with a temporary HOME, writes the agent's own token (600), both SKILL.md files and prints the MCP line", async () => {
    const code = await t.owner.createInstallCode();
    assert.equal(code.kind, 'install');
    assert.deepEqual([code.name, code.scope], ['installed agent', 'write']);
    assert.match(code.command, /^curl -sSL 'http:\/\/127\.0\.0\.1:\d+\/bridge\/v1\/install\?code=[\w-]+' \| sh$/);
    assert.match(
      code.mcpCommand,
      /^claude mcp add --transport http study-bridge http:\/\/127\.0\.0\.1:\d+\/bridge\/v1\/mcp --header "Authorization: Bearer \$\(cat ~\/\.config\/study-bridge\/token\)"$/,
    );
    const tokenBefore = readFileSync(join(t.dataDir, 'token'), 'utf8');

    const res = await t.anonymous.raw('GET', '/install', { query: { code: code.code } });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /shellscript/);
    const home = tempDir('sb-home-');
    const out = execFileSync('sh', ['-s'], {
      input: res.text(),
      env: { PATH: process.env.PATH, HOME: home },
      encoding: 'utf8',
    });
    assert.match(out, /claude mcp add --transport http study-bridge/);
    assert.ok(!out.includes(t.bridge.token), 'the token is not printed');

    const tokenFile = join(home, '.config/study-bridge/token');
    const agentToken = readFileSync(tokenFile, 'utf8').trim();
    assert.match(agentToken, /^sbt0\./);
    assert.notEqual(agentToken, t.bridge.token, "the owner's token never leaves the data dir");
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    for (const dir of ['.claude/skills/study-bridge', '.agents/skills/study-bridge']) {
      const skill = readFileSync(join(home, dir, 'SKILL.md'), 'utf8');
      assert.match(skill, /^---\nname: study-bridge\ndescription: /);
      assert.ok(skill.includes('# Study Bridge — runtime guide for agents'));
    }
    // The installed token works as a write agent, listed by name; installing never rotated the owner's.
    const installed = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: agentToken });
    assert.equal((await installed.status()).authorized, true);
    await installed.createStudySet('Installed agent set');
    const listed = (await t.owner.tokens.list()).filter((x) => x.name === 'installed agent');
    assert.equal(listed.length, 1);
    assert.equal(listed[0].scope, 'write');
    assert.ok(listed[0].lastUsedAt, 'its last use is known');
    assert.equal(readFileSync(join(t.dataDir, 'token'), 'utf8'), tokenBefore);
  });

  it('--scope read: the code makes a named read token (GETs work, writes are 403 SCOPE_REQUIRED)', async () => {
    const code = await t.owner.createInstallCode({ name: 'Reader bot', scope: 'read' });
    assert.deepEqual([code.name, code.scope], ['Reader bot', 'read']);
    const script = (await t.anonymous.raw('GET', '/install', { query: { code: code.code } })).text();
    const token = /TOKEN='(sbt0\.[\w-]+)'/.exec(script)![1];
    const reader = new BridgeClient({ baseUrl: t.bridge.baseUrl, token });
    assert.ok(Array.isArray(await reader.listStudySets()));
    const res = await reader.raw('POST', '/library/study-sets', { body: { title: 'x', confirm: true } });
    assert.equal(res.status, 403);
    assert.equal(res.json<any>().error.details.scopeRequired, 'write');
    assert.deepEqual(
      (await t.owner.tokens.list()).filter((x) => x.name === 'Reader bot').map((x) => x.scope),
      ['read'],
    );
  });

  it('an agent cannot make install or pairing codes: 403 SCOPE_REQUIRED (owner)', async () => {
    for (const kind of ['install', 'pair']) {
      const res = await t.client.raw('POST', '/install/code', { body: { kind } });
      assert.equal(res.status, 403);
      assert.equal(res.json<any>().error.code, 'SCOPE_REQUIRED');
      assert.equal(res.json<any>().error.details.scopeRequired, 'owner');
    }
  });

  it('a used code → 403 with a script that explains, and exits non-zero', async () => {
    const { code } = await t.owner.createInstallCode();
    assert.equal((await t.anonymous.raw('GET', '/install', { query: { code } })).status, 200);
    const again = await t.anonymous.raw('GET', '/install', { query: { code } });
    assert.equal(again.status, 403);
    assert.match(again.text(), /invalid, already used or expired/);
    const home = tempDir('sb-home-');
    const run = spawnSync('sh', ['-s'], {
      input: again.text(),
      env: { PATH: process.env.PATH, HOME: home },
      encoding: 'utf8',
    });
    assert.notEqual(run.status, 0);
    assert.ok(!existsSync(join(home, '.config/study-bridge/token')));
  });

  it('an expired or unknown code → 403', async () => {
    const { code } = await t.owner.createInstallCode();
    await sleep(3200);
    assert.equal((await t.anonymous.raw('GET', '/install', { query: { code } })).status, 403);
    assert.equal((await t.anonymous.raw('GET', '/install', { query: { code: 'made-up' } })).status, 403);
  });

  it('a missing code → 422 INVALID_INPUT', async () => {
    const res = await t.anonymous.raw('GET', '/install');
    assert.equal(res.status, 422);
    assert.equal(res.json<any>().error.code, 'INVALID_INPUT');
  });

  it('POST /install/code rejects an unknown kind', async () => {
    const res = await t.owner.raw('POST', '/install/code', { body: { kind: 'root' } });
    assert.equal(res.status, 422);
  });
});

describe('pairing (POST /pair)', () => {
  let t: TestBridge;
  before(async () => (t = await startBridge({ limits: { pairCodeMs: 3000 } })));
  after(() => t.stop());

  const pairFails = async (code: unknown) => {
    const res = await t.anonymous.raw('POST', '/pair', { body: { code, deviceName: 'test' } });
    assert.equal(res.status, 403, JSON.stringify(code));
    assert.equal(res.json<any>().error.code, 'PAIRING_FAILED');
  };

  it('a 6-digit code pairs once and gives a working device token', async () => {
    const { code } = await t.owner.createPairCode();
    assert.match(code, /^\d{6}$/);
    const paired = await t.anonymous.pair(code, 'Laptop · Claude Code');
    assert.match(paired.token, /^sbt0\./);
    assert.equal(paired.scope, 'write');
    assert.deepEqual(
      (await t.owner.tokens.list()).filter((x) => x.tokenId === paired.tokenId).map((x) => [x.name, x.scope]),
      [['Laptop · Claude Code', 'write']],
    );
    assert.notEqual(paired.token, t.bridge.token);
    const device = new BridgeClient({ baseUrl: t.bridge.baseUrl, token: paired.token });
    assert.equal((await device.status()).authorized, true);
    assert.ok(Array.isArray(await device.listStudySets()));
    await pairFails(code); // once only
  });

  it('three wrong codes kill the pending code', async () => {
    const { code } = await t.owner.createPairCode();
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 3; i++) await pairFails(wrong);
    await pairFails(code);
  });

  it('an expired code fails; so do malformed ones', async () => {
    const { code } = await t.owner.createPairCode();
    await sleep(3200);
    await pairFails(code);
    for (const bad of [undefined, '', 'abcdef', 12, { x: 1 }]) await pairFails(bad);
  });
});
