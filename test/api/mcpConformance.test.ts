import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBridge, type TestBridge } from '../helpers/bridgeFixture';
import { conformanceCli, node24 } from '../helpers/conformanceTools';
import { tokenProxy } from '../helpers/tokenProxy';

const OUT = join(__dirname, '..', '..', 'test-output', 'conformance');
const EXPECTED = join(__dirname, '..', 'conformance', 'expected-failures.yml');

function run(bin: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

/**
 * The official MCP conformance suite against the real bridge, through a
 * loopback proxy that adds the bearer token. Every scenario runs; the
 * baseline lists only those needing tools, resources or prompts this server
 * does not have (each with its reason), and the suite itself fails the run
 * when a listed scenario starts passing.
 */
describe('MCP conformance suite (@modelcontextprotocol/conformance, Node 24)', function () {
  this.timeout(600_000);
  let t: TestBridge;
  let proxy: Awaited<ReturnType<typeof tokenProxy>>;
  let node: string;
  let cli: string;
  before(async () => {
    node = node24();
    cli = conformanceCli();
    t = await startBridge();
    proxy = await tokenProxy(t.bridge.port, t.bridge.token);
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await proxy?.close();
    await t?.stop();
  });

  it('passes every applicable 2025-11-25 scenario, dns-rebinding-protection and logging-set-level included', async () => {
    const dir = join(OUT, `run-${Date.now()}`);
    const { code, out } = await run(node, [
      cli,
      'server',
      '--url',
      proxy.url,
      '--spec-version',
      '2025-11-25',
      '--expected-failures',
      EXPECTED,
      '-o',
      dir,
    ]);
    assert.equal(code, 0, out.slice(-4000));
    const summary = out.slice(out.indexOf('=== SUMMARY ==='));
    for (const scenario of [
      'server-initialize',
      'logging-set-level',
      'ping',
      'tools-list',
      'resources-list',
      'dns-rebinding-protection',
    ])
      assert.match(summary, new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`), summary);
    // The checks each scenario wrote: the rebinding scenario's two checks both succeeded.
    const rebinding = readdirSync(dir).find((d) => d.startsWith('server-dns-rebinding-protection'))!;
    const checks = JSON.parse(readFileSync(join(dir, rebinding, 'checks.json'), 'utf8')) as Array<{ status: string }>;
    assert.deepEqual(
      checks.map((c) => c.status),
      ['SUCCESS', 'SUCCESS'],
    );
  });
});
