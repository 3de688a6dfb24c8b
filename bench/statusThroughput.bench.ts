// GET /status req/s of the bridge (guard, @koa/router, route middleware, JSON)
// next to a bare Koa hello-world, each server in its own process, same load
// loop. Goal: the bridge at ≥ 65 % of bare Koa.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { printTable } from './table';
import { cliPath, ensureBuilt } from '../test/helpers/childBridge';

const SECONDS = 4;
const ROUNDS = 5;
const GOAL = 65;
const CONCURRENCY = 16;

function startChild(cmd: string[], pattern: RegExp): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, cmd, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (c) => reject(new Error(`exited ${c}`)));
  });
}

/** autocannon: CONCURRENCY keep-alive connections for SECONDS, after a short warm-up. */
async function load(port: number, path: string): Promise<{ rps: number; errors: number; p99: number }> {
  const url = `http://127.0.0.1:${port}${path}`;
  await autocannon({ url, connections: CONCURRENCY, duration: 1 });
  const r = await autocannon({ url, connections: CONCURRENCY, duration: SECONDS });
  return { rps: r.requests.average, errors: r.errors + r.non2xx, p99: r.latency.p99 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  ensureBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-'));
  const koa = await startChild([join(__dirname, 'fixtures/koaHello.cjs')], /listening (\d+)/);
  const bridge = await startChild([cliPath, 'serve', '--data', dataDir, '--port', '0'], /127\.0\.0\.1:(\d+)\/bridge/);
  // Alternate rounds so that background load on the machine hits both alike; report medians.
  const k: Array<Awaited<ReturnType<typeof load>>> = [];
  const b: Array<Awaited<ReturnType<typeof load>>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    k.push(await load(koa.port, '/'));
    b.push(await load(bridge.port, '/bridge/v1/status'));
  }
  koa.child.kill();
  bridge.child.kill('SIGTERM');
  await new Promise((r) => bridge.child.once('exit', r));
  const kr = median(k.map((x) => x.rps));
  const br = median(b.map((x) => x.rps));
  // Each round's bridge run next to the Koa run just before it: on a busy machine
  // the median of these pairs varies less than the ratio of the two medians.
  const ratio = median(b.map((x, i) => (100 * x.rps) / k[i].rps));
  printTable(
    ['server', 'req/s (median)', 'rounds', 'p99 ms', 'errors', 'vs Koa'],
    [
      [
        'bare Koa hello-world',
        kr,
        k.map((x) => Math.round(x.rps)).join(' / '),
        median(k.map((x) => x.p99)),
        k.reduce((a, x) => a + x.errors, 0),
        '100 %',
      ],
      [
        'Study Bridge GET /status',
        br,
        b.map((x) => Math.round(x.rps)).join(' / '),
        median(b.map((x) => x.p99)),
        b.reduce((a, x) => a + x.errors, 0),
        `${ratio.toFixed(0)} % (goal ≥ ${GOAL} %)`,
      ],
    ],
  );
  process.stdout.write(
    `\n${CONCURRENCY} keep-alive connections (autocannon, in this process), ${ROUNDS} alternating rounds of ${SECONDS} s, servers in child processes.\n`,
  );
  process.stdout.write(
    `vs Koa: median over the rounds of bridge req/s ÷ the Koa req/s measured just before it${ratio >= GOAL ? '' : ` — BELOW the goal of ${GOAL} %`}.\n`,
  );
  rmSync(dataDir, { recursive: true, force: true });
}

void main();
