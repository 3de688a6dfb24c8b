// Importing a 20,000-note "Basic (and reversed card)" package (40,000 cards,
// a third of them reviewed with three revlog rows each) into a new library:
// goal ≤ 5 s and peak RSS ≤ +300 MB. Each run imports in its own process, so
// its peak RSS is the import's alone. `npm run bench -- ankiReversed`.
import { spawnSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { createBridge } from '../src/server/bridge';
import {
  BASIC_AND_REVERSED,
  buildApkg,
  crtDaysAgo,
  type BuildCard,
  type BuildNote,
} from '../test/helpers/ankiPackageBuilder';
import { printTable } from './table';

const NOTES = 20_000;
/** Runs (processes); ANKI_BENCH_RUNS=1 for a quick figure on a busy machine. */
const RUNS = Number(process.env.ANKI_BENCH_RUNS) || 3;
const DAY_MS = 86_400_000;

function reviewed(i: number, ord: number): BuildCard {
  if ((i + ord) % 3 !== 0) return { ord, type: 0, due: i };
  const t = Date.now() - 20 * DAY_MS + i;
  return {
    ord,
    type: 2,
    queue: i % 50 === 0 ? -1 : 2,
    due: 30 + (i % 60),
    ivl: 1 + (i % 40),
    reps: 3,
    lapses: i % 2,
    factor: 2500,
    flags: i % 8,
    data: JSON.stringify({ s: 5 + (i % 30), d: 3 + (i % 5) }),
    revlog: [
      { id: t, ease: 3, ivl: -600, lastIvl: 0, time: 5000, type: 0 },
      { id: t + 3 * DAY_MS, ease: 1 + (i % 4), ivl: 1, lastIvl: -600, time: 7000, type: 0 },
      { id: t + 9 * DAY_MS, ease: 3, ivl: 1 + (i % 40), lastIvl: 1, time: 4000, type: 1 },
    ],
  };
}

async function reversedPackage(): Promise<Uint8Array> {
  const notes: BuildNote[] = [];
  for (let i = 0; i < NOTES; i++)
    notes.push({
      guid: `rev${i.toString(36)}`,
      model: 'Basic (and reversed card)',
      fields: [`front <b>${i}</b> of a word`, `back ${i}: its meaning, with an example.`],
      tags: [`Level::${i % 10}`],
      cards: [reviewed(i, 0), reviewed(i, 1)],
    });
  return buildApkg({
    crt: crtDaysAgo(30),
    models: [BASIC_AND_REVERSED],
    decks: ['Bench::Reversed'],
    notes,
  });
}

/** One import into a new library, in this process: prints `{ ms, cpuMs, rssMb, loopMs, cards }` (loopMs: the longest event-loop delay during it). */
async function child(file: string) {
  const apkg = readFileSync(file);
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-ankirev-'));
  const bridge = await createBridge({
    dataDir,
    port: 0,
    store: {
      idleCheckpointMs: 0,
      // No checkpoint set off by the import's journal record: it began before this in-process client read the answer
      // and put its first ~10-20 MB into the import's peak. It is measured on its own, right after (second row).
      checkpointBytes: Infinity,
      // ANKI_BENCH_ON_THREAD=1: the first checkpoint exported on the bridge thread, as before it went off-thread.
      ...(process.env.ANKI_BENCH_ON_THREAD ? { offThreadCheckpointBytes: Infinity } : {}),
    },
  });
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  try {
    // A running bridge and an agent's client have served requests before: this process's first request pays for
    // loading fetch (undici) and the routes' first use, 50-120 ms that are not the import's (15-35 ms warm).
    await client.status();
    global.gc?.();
    const before = process.memoryUsage().rss;
    const cpu0 = process.cpuUsage();
    const faults0 = process.resourceUsage().minorPageFault;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const r = await client.anki.importPackage(apkg, 'bench.apkg');
    const ms = performance.now() - t0;
    loop.disable();
    const cpu = process.cpuUsage(cpu0);
    const faults = process.resourceUsage().minorPageFault - faults0;
    const peak = process.resourceUsage().maxRSS * 1024;
    if (r.cards !== NOTES * 2) throw new Error(`import: ${JSON.stringify({ ...r, skipped: r.skipped.length })}`);
    // The import's record then goes into library.db (the new library's first checkpoint, where ANKI_BENCH_ON_THREAD says): its peak too.
    const c0 = performance.now();
    await bridge.services.store.checkpoint();
    const checkpointMs = performance.now() - c0;
    const checkpointPeak = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(
      JSON.stringify({
        ms,
        cpuMs: (cpu.user + cpu.system) / 1000,
        rssMb: (peak - before) / 1048576,
        loopMs: loop.max / 1e6,
        cards: r.cards,
        faults,
        checkpointMs,
        checkpointRssMb: (checkpointPeak - before) / 1048576,
      }),
    );
  } finally {
    await bridge.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  process.stderr.write(`  … building a ${NOTES}-note Basic (and reversed card) package\n`);
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-ankirev-pkg-'));
  const file = join(dir, 'reversed.apkg');
  writeFileSync(file, await reversedPackage());
  const runs: Array<{
    ms: number;
    cpuMs: number;
    rssMb: number;
    loopMs: number;
    checkpointMs: number;
    checkpointRssMb: number;
    faults: number;
  }> = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      // ANKI_BENCH_PROF=<dir>: each run's threads write V8 CPU profiles there (open them in Chrome's DevTools).
      const prof = process.env.ANKI_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ANKI_BENCH_PROF}`] : [];
      const r = spawnSync(process.execPath, [...prof, '--expose-gc', '--import', 'tsx', __filename, '--child', file], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (r.status !== 0) throw new Error(`run ${run + 1} failed (${r.status} ${r.signal})`);
      runs.push(JSON.parse(r.stdout.trim().split('\n').pop()!));
      process.stderr.write(
        `  … run ${run + 1}: ${runs.at(-1)!.ms.toFixed(0)} ms, +${runs.at(-1)!.rssMb.toFixed(0)} MB, loop delay ${runs.at(-1)!.loopMs.toFixed(0)} ms; then its first checkpoint ${runs.at(-1)!.checkpointMs.toFixed(0)} ms, peak +${runs.at(-1)!.checkpointRssMb.toFixed(0)} MB\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ms = median(runs.map((r) => r.ms));
  const mb = Math.max(...runs.map((r) => r.rssMb));
  const loopMs = Math.max(...runs.map((r) => r.loopMs));
  const faults = median(runs.map((r) => r.faults));
  const faultUs = firstTouchMicroseconds();
  process.stderr.write(
    `  … the import's first touches of memory: ${faults} page faults (median), at ${faultUs.toFixed(1)} µs each on this machine ≈ ${((faults * faultUs) / 1000).toFixed(0)} ms of it\n`,
  );
  printTable(
    [
      'what (HTTP, real bridge, new library)',
      'runs',
      'median ms',
      'max ms',
      'median CPU ms',
      'peak RSS MB',
      'max loop delay ms',
      'goal',
      '',
    ],
    [
      [
        `import ${NOTES} Basic+reversed notes (${NOTES * 2} cards)`,
        RUNS,
        ms,
        Math.max(...runs.map((r) => r.ms)),
        median(runs.map((r) => r.cpuMs)),
        `+${mb.toFixed(0)}`,
        loopMs,
        '≤ 5000 ms, ≤ +300 MB, loop ≤ 250 ms',
        ms <= 5000 && mb <= 300 && loopMs <= 250 ? 'meets' : 'MISSES',
      ],
      [
        `then the new library's first checkpoint (${process.env.ANKI_BENCH_ON_THREAD ? 'bridge thread' : 'off-thread'}), until written`,
        RUNS,
        median(runs.map((r) => r.checkpointMs)),
        Math.max(...runs.map((r) => r.checkpointMs)),
        '',
        `+${Math.max(...runs.map((r) => r.checkpointRssMb)).toFixed(0)}`,
        '',
        'comparison',
        '',
      ],
    ],
  );
}

/**
 * What one page fault costs here: the first write to each 4 KB page of a fresh 128 MB array, less a second pass.
 * Most of an import's peak RSS is memory touched for the first time, so its time holds that many faults.
 */
function firstTouchMicroseconds(): number {
  const bytes = 128 * 1024 * 1024;
  const big = new Uint8Array(bytes);
  const page = new Uint8Array(4096).fill(7);
  const pass = () => {
    const t = performance.now();
    for (let at = 0; at < bytes; at += 4096) big.set(page, at);
    return performance.now() - t;
  };
  const first = pass();
  return ((first - pass()) * 1000) / (bytes / 4096);
}

const at = process.argv.indexOf('--child');
(at >= 0 ? child(process.argv[at + 1]) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
