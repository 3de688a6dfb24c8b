// Faults: kill -9 rounds and sustained load against the headless bridge
// (`dist/cli.js serve` in a child process), talking HTTP like agents do.
//
// 1. Rounds: N clients write cards for a random short time, the bridge is
//    killed with SIGKILL, restarted, and every acknowledged card is looked
//    for. A missing one is a loss (the durability promise is zero).
// 2. Load: many clients write for a while; the bridge's RSS is sampled over
//    time, then it is killed and checked the same way.
//
// Longer runs: FAULTS_ROUNDS (10), FAULTS_CLIENTS (8), FAULTS_MAX_ROUND_MS
// (3000), FAULTS_LOAD_CLIENTS (50), FAULTS_LOAD_SECONDS (30), e.g.
//   FAULTS_ROUNDS=200 FAULTS_LOAD_SECONDS=60 npm run bench -- faults
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnBridge, type ChildBridge } from '../test/helpers/childBridge';
import { tempDir } from '../test/helpers/bridgeFixture';
import { percentile, printTable } from './table';

const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const ROUNDS = num('FAULTS_ROUNDS', 10);
const CLIENTS = num('FAULTS_CLIENTS', 8);
const MAX_ROUND_MS = num('FAULTS_MAX_ROUND_MS', 3000);
const LOAD_CLIENTS = num('FAULTS_LOAD_CLIENTS', 50);
const LOAD_SECONDS = num('FAULTS_LOAD_SECONDS', 30);
const RSS_EVERY_MS = 500;

interface Tally {
  acked: Map<string, string>; // noteid → topicid
  errors: number; // answers other than 2xx, and requests refused before the kill
  errorCodes: Map<string, number>;
  latencies: number[];
}
const tally = (): Tally => ({ acked: new Map(), errors: 0, errorCodes: new Map(), latencies: [] });

class Bridge {
  private constructor(
    readonly child: ChildBridge,
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  static async start(dataDir: string): Promise<Bridge> {
    const child = await spawnBridge(['--data', dataDir, '--port', '0']);
    return new Bridge(child, child.baseUrl, readFileSync(join(dataDir, 'token'), 'utf8').trim());
  }

  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    return fetch(this.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  }

  async json<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body);
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** VmRSS of the child in MB (Linux), else undefined. */
  rssMb(): number | undefined {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.child.child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : undefined;
    } catch {
      return undefined;
    }
  }

  async kill9(): Promise<void> {
    this.child.child.kill('SIGKILL');
    await this.child.exited;
  }
}

/** One client: writes cards into its set until `stop` says so. Requests cut by the kill are neither acked nor errors. */
async function writer(b: Bridge, topicid: string, label: string, t: Tally, stop: { now: boolean }): Promise<void> {
  for (let i = 0; !stop.now; i++) {
    const started = performance.now();
    let res: Response;
    try {
      res = await b.request('POST', `/study-sets/${topicid}/notes`, {
        title: `${label} card ${i}`,
        text: `written by ${label}, #${i}`,
        confirm: true,
      });
    } catch {
      if (stop.now) return; // the kill cut it: its outcome is unknown, so it is not counted
      t.errors++;
      continue;
    }
    const body = (await res.json().catch(() => undefined)) as { noteid?: string; error?: { code: string } } | undefined;
    if (res.ok && body?.noteid) {
      t.acked.set(body.noteid, topicid);
      t.latencies.push(performance.now() - started);
    } else {
      t.errors++;
      const code = body?.error?.code ?? String(res.status);
      t.errorCodes.set(code, (t.errorCodes.get(code) ?? 0) + 1);
    }
  }
}

/** Acknowledged cards not in their set after the restart. */
async function losses(b: Bridge, acked: Map<string, string>): Promise<number> {
  const present = new Set<string>();
  for (const topicid of new Set(acked.values())) {
    const tree = await b.json<{ nodes: { noteid: string }[] }>('GET', `/study-sets/${topicid}/tree`);
    for (const n of tree.nodes) present.add(n.noteid);
  }
  let lost = 0;
  for (const id of acked.keys()) if (!present.has(id)) lost++;
  return lost;
}

async function sets(b: Bridge, n: number, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(
      (await b.json<{ topicid: string }>('POST', '/library/study-sets', { title: `${prefix} ${i}`, confirm: true }))
        .topicid,
    );
  return out;
}

const mb = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? `${s[0].toFixed(0)} / ${percentile(s, 50).toFixed(0)} / ${s[s.length - 1].toFixed(0)}` : 'n/a';
};
const lat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? [percentile(s, 50), percentile(s, 99)] : [NaN, NaN];
};
const codes = (t: Tally) => [...t.errorCodes].map(([c, n]) => `${c}×${n}`).join(', ') || '-';

async function main() {
  const dataDir = tempDir('sb-faults-');
  const started = performance.now();

  // ── kill -9 rounds ──
  let b = await Bridge.start(dataDir);
  const roundSets = await sets(b, CLIENTS, 'faults round client');
  const rounds = tally();
  let roundLosses = 0;
  const roundRss: number[] = [];
  const restartMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const stop = { now: false };
    const runFor = MAX_ROUND_MS / 10 + Math.random() * (MAX_ROUND_MS * 0.9);
    const round = tally();
    const writers = roundSets.map((topicid, c) => writer(b, topicid, `r${r}c${c}`, round, stop));
    await new Promise((res) => setTimeout(res, runFor));
    const rss = b.rssMb();
    if (rss !== undefined) roundRss.push(rss);
    stop.now = true;
    await b.kill9();
    await Promise.all(writers);
    const t0 = performance.now();
    b = await Bridge.start(dataDir);
    restartMs.push(performance.now() - t0);
    // Every acknowledged card so far, not only this round's: earlier replays must hold too.
    for (const [k, v] of round.acked) rounds.acked.set(k, v);
    rounds.errors += round.errors;
    for (const [c, n] of round.errorCodes) rounds.errorCodes.set(c, (rounds.errorCodes.get(c) ?? 0) + n);
    rounds.latencies.push(...round.latencies);
    roundLosses = await losses(b, rounds.acked);
    if (roundLosses) process.stdout.write(`round ${r}: ${roundLosses} acknowledged card(s) missing\n`);
  }

  // ── sustained load, RSS over time ──
  const loadSets = await sets(b, LOAD_CLIENTS, 'faults load client');
  const load = tally();
  const samples: Array<{ s: number; rss: number; acked: number }> = [];
  const loadStart = performance.now();
  const sampler = setInterval(() => {
    const rss = b.rssMb();
    if (rss !== undefined) samples.push({ s: (performance.now() - loadStart) / 1000, rss, acked: load.acked.size });
  }, RSS_EVERY_MS);
  const stop = { now: false };
  const writers = loadSets.map((topicid, c) => writer(b, topicid, `load c${c}`, load, stop));
  await new Promise((res) => setTimeout(res, LOAD_SECONDS * 1000));
  clearInterval(sampler);
  stop.now = true;
  await b.kill9();
  await Promise.all(writers);
  b = await Bridge.start(dataDir);
  const loadLosses = (await losses(b, load.acked)) + (await losses(b, rounds.acked));
  b.child.child.kill('SIGTERM');
  await b.child.exited;
  rmSync(dataDir, { recursive: true, force: true });

  const [rp50, rp99] = lat(rounds.latencies);
  const [lp50, lp99] = lat(load.latencies);
  const rssOnly = samples.map((x) => x.rss);
  printTable(
    [
      'phase',
      'rounds',
      'clients',
      'acknowledged writes',
      'losses',
      'errors',
      'RSS MB min / median / max',
      'write p50 ms',
      'write p99 ms',
    ],
    [
      [
        'kill -9 rounds',
        ROUNDS,
        CLIENTS,
        rounds.acked.size,
        roundLosses,
        `${rounds.errors} (${codes(rounds)})`,
        mb(roundRss),
        rp50,
        rp99,
      ],
      [
        `load ${LOAD_SECONDS} s, then kill -9`,
        1,
        LOAD_CLIENTS,
        load.acked.size,
        loadLosses,
        `${load.errors} (${codes(load)})`,
        mb(rssOnly),
        lp50,
        lp99,
      ],
    ],
  );
  // RSS over time: about ten evenly spaced samples of the load phase.
  process.stdout.write('\nRSS during the load phase\n\n');
  const step = Math.max(1, Math.floor(samples.length / 10));
  printTable(
    ['t s', 'RSS MB', 'acknowledged so far'],
    samples.filter((_, i) => i % step === 0 || i === samples.length - 1).map((x) => [x.s, x.rss, x.acked]),
  );
  const rs = [...restartMs].sort((a, b) => a - b);
  process.stdout.write(
    `\nrestart after kill -9 (spawn to listening): p50 ${percentile(rs, 50).toFixed(0)} ms, max ${rs[rs.length - 1].toFixed(0)} ms; total ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
  if (roundLosses + loadLosses > 0) process.exitCode = 1;
}

void main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
