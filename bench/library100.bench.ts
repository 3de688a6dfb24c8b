// Issue 20's library of 100 real books: each a 311-page PDF built from the
// corpus (asymptote.pdf + 4ti2_manual.pdf + CAD.pdf + asymptote pages 1–49),
// made distinct by a comment after %%EOF (its own MD5, the same real text),
// uploaded over HTTP to `study-bridge serve` (dist/cli.js, a child process)
// and extracted for real. After each stage (25/50/100 books) all are ready,
// the idle checkpoint has run (the journal is empty) and the bridge's memory
// is read. Then cold and warm document searches: "cold" is the first search
// after a restart on the same data dir, asked right after one GET
// /library/folders (the connection is open and the process has answered one
// JSON body: Node loads its fetch classes on the first one, ~50 ms that are
// no search's) — at once, and 1 s later (the bridge reads the book index
// ahead after it starts). The OS file cache is warm.
// `npm run bench -- library100`; LIBRARY_BOOKS=N for a shorter run; LIBRARY_GC=1
// collects garbage before each memory reading (what the bridge holds, not what
// V8 has yet to collect).
// Threads in the tables: the main thread, V8 and libuv's, plus each live PDF worker's.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { corpusFile } from '../test/unit/pdfCorpus';
import { percentile, printTable } from './table';

const BOOKS = Number(process.env.LIBRARY_BOOKS ?? 100);
const STAGES = [...new Set([25, 50, 100, BOOKS].filter((n) => n <= BOOKS))].sort((a, b) => a - b);
const PROBE = join(__dirname, 'fixtures/memoryProbe.cjs');
/** LIBRARY_CLI: another build of the CLI (a copy of dist/, to compare before and after). */
const CLI = process.env.LIBRARY_CLI ?? join(__dirname, '../dist/cli.js');
/** Queries of known spread in every book: pages per book in the 311-page book. */
const QUERIES: Array<[q: string, note: string]> = [
  ['draw', '~99 pages in every book'],
  ['bezier', '~23 pages in every book'],
  ['markov basis', '~10 pages in every book'],
  ['nonexistentword', 'in no book'],
];
const PREVIOUS = { rssMb: 724, coldMs: 135 };

const progress = (what: string) => process.stderr.write(`  … ${what}\n`);
const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : (bytes / 2 ** 20).toFixed(0));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg()[0].toFixed(2);

interface Memory {
  usage: NodeJS.MemoryUsage;
  cpu: NodeJS.CpuUsage;
  heap: { used: number; total: number; physical: number; malloced: number; external: number };
  threads?: number;
  peakKb?: number;
}

class Served {
  private seq = 0;
  private constructor(
    readonly child: ChildProcess,
    readonly client: BridgeClient,
    readonly startMs: number,
  ) {}

  /** `study-bridge serve` on the data dir with the memory probe preloaded; resolves once it listens. */
  static start(dataDir: string): Promise<Served> {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...(process.env.LIBRARY_GC ? ['--expose-gc'] : []),
        '--require',
        PROBE,
        CLI,
        'serve',
        '--data',
        dataDir,
        '--port',
        '0',
      ],
      { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
    );
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (/listening on (\S+)/.test(out))
          resolve(new Served(child, BridgeClient.fromDataDir(dataDir), performance.now() - t0));
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
  }

  memory(): Promise<Memory> {
    const id = ++this.seq;
    return new Promise((resolve) => {
      const on = (m: { kind: string; id: number } & Memory) => {
        if (m.kind !== 'memory' || m.id !== id) return;
        this.child.off('message', on);
        resolve(m);
      };
      this.child.on('message', on);
      this.child.send({ kind: 'memory', id, gc: !!process.env.LIBRARY_GC });
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

/** The 311-page book: real text from the corpus (qpdf joins the files). */
function baseBook(dir: string): Buffer {
  const out = join(dir, 'base.pdf');
  const asy = corpusFile('asymptote.pdf');
  execFileSync('qpdf', [
    '--empty',
    '--pages',
    asy,
    corpusFile('4ti2_manual.pdf'),
    corpusFile('CAD.pdf'),
    asy,
    '1-49',
    '--',
    out,
  ]);
  return readFileSync(out);
}

/** Book i: the same bytes and a comment after %%EOF, so its MD5 (its identity in the library) is its own. */
const copyOf = (base: Buffer, i: number) => Buffer.concat([base, Buffer.from(`% study-bridge bench copy ${i}\n`)]);

/** Waits until every listed book is ready (or failed: that throws). */
async function allReady(client: BridgeClient, ids: string[]): Promise<void> {
  const pending = new Set(ids);
  while (pending.size) {
    for (const id of [...pending]) {
      const o = await client.outline(id);
      const state = (o as { extraction: { state: string } }).extraction.state;
      if (state === 'failed') throw new Error(`book ${id} failed to extract`);
      if (state === 'ready') pending.delete(id);
    }
    if (pending.size) await sleep(1000);
  }
}

/** Waits for the idle checkpoint: the journal is empty (the store folds it into library.db 5 s after the last write). */
async function idleCheckpoint(dataDir: string): Promise<number> {
  const t0 = performance.now();
  const size = () => {
    try {
      return statSync(join(dataDir, 'library.journal')).size;
    } catch {
      return 0;
    }
  };
  while (size() > 0) await sleep(250);
  return performance.now() - t0;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sb-bench-lib100-'));
  // LIBRARY_DATA=<dir>: a data dir this bench kept (LIBRARY_KEEP=1): searches only, no uploads.
  const reuse = process.env.LIBRARY_DATA;
  const dataDir = reuse ?? join(work, 'data');
  const base = baseBook(work);
  const memRows: Array<Array<string | number>> = [];
  const searchRows: Array<Array<string | number>> = [];
  let served = await Served.start(dataDir);
  try {
    const m0 = await served.memory();
    memRows.push([
      '0 (started)',
      mb(m0.usage.rss),
      mb(m0.usage.heapUsed),
      mb(m0.usage.external),
      mb(m0.usage.arrayBuffers),
      m0.threads ?? '?',
      '',
      load(),
    ]);
    const ids: string[] = [];
    const t0 = performance.now();
    for (const stage of reuse ? [] : STAGES) {
      const batch: string[] = [];
      for (let i = ids.length; i < stage; i++) {
        const up = await served.client.uploadDocument(copyOf(base, i), {
          filename: `book-${String(i).padStart(3, '0')}.pdf`,
        });
        ids.push(up.bookmd5);
        batch.push(up.bookmd5);
      }
      await allReady(served.client, batch);
      const readyS = (performance.now() - t0) / 1000;
      const waitMs = await idleCheckpoint(dataDir);
      await sleep(500);
      const m = await served.memory();
      progress(
        `${stage} books ready at ${readyS.toFixed(0)} s; checkpoint ${waitMs.toFixed(0)} ms later; RSS ${mb(m.usage.rss)} MB`,
      );
      memRows.push([
        `${stage}, after the idle checkpoint`,
        mb(m.usage.rss),
        mb(m.usage.heapUsed),
        mb(m.usage.external),
        mb(m.usage.arrayBuffers),
        m.threads ?? '?',
        mb((m.peakKb ?? 0) * 1024),
        load(),
      ]);
    }
    // The extraction workers' idle timeout has passed: what the bridge holds once nothing runs.
    await sleep(reuse ? 0 : 20_000);
    const settled = await served.memory();
    memRows.push([
      reuse ? 'kept data dir, started' : `${BOOKS}, 20 s later`,
      mb(settled.usage.rss),
      mb(settled.usage.heapUsed),
      mb(settled.usage.external),
      mb(settled.usage.arrayBuffers),
      settled.threads ?? '?',
      mb((settled.peakKb ?? 0) * 1024),
      load(),
    ]);

    // Cold: the first search after a restart (3 restarts per query and wait, median); warm: 20 more of the same.
    for (const [q, note] of QUERIES) {
      const coldAt = new Map<number, number[]>([
        [0, []],
        [1000, []],
      ]);
      // The bridge's own CPU time over the query (all threads): less at the mercy of a loaded machine than wall time.
      const cpuAt = new Map<number, number[]>([
        [0, []],
        [1000, []],
      ]);
      const restart: number[] = [];
      for (const [waitMs, cold] of coldAt)
        for (let r = 0; r < 3; r++) {
          await served.stop();
          served = await Served.start(dataDir);
          restart.push(served.startMs);
          await served.client.request('GET', '/library/folders');
          await sleep(waitMs);
          const before = (await served.memory()).cpu;
          cold.push(await timed(() => served.client.search(q, { scope: 'documents', limit: 20 })));
          const after = (await served.memory()).cpu;
          cpuAt.get(waitMs)!.push((after.user + after.system - before.user - before.system) / 1000);
        }
      const cold = coldAt.get(0)!;
      const later = coldAt.get(1000)!;
      const warm: number[] = [];
      for (let i = 0; i < 20; i++)
        warm.push(await timed(() => served.client.search(q, { scope: 'documents', limit: 20 })));
      warm.sort((a, b) => a - b);
      const r = await served.client.search(q, { scope: 'documents', limit: 20 });
      const runs = (xs: number[]) => xs.map((c) => c.toFixed(0)).join(', ');
      searchRows.push([
        `"${q}" (${note})`,
        median(cold),
        runs(cold),
        median(later),
        runs(later),
        `${median(cpuAt.get(0)!).toFixed(0)} / ${median(cpuAt.get(1000)!).toFixed(0)}`,
        percentile(warm, 50),
        percentile(warm, 95),
        `${r.documents.length} docs, ${r.scanned.pages} pages${r.truncated ? ', truncated' : ''}`,
        load(),
      ]);
      progress(
        `search "${q}": cold ${runs(cold)} ms, 1 s after the start ${runs(later)} ms (restart ${median(restart).toFixed(0)} ms)`,
      );
    }
    const after = await served.memory();
    memRows.push([
      `${BOOKS}, restarted, after ${QUERIES.length * 27} searches`,
      mb(after.usage.rss),
      mb(after.usage.heapUsed),
      mb(after.usage.external),
      mb(after.usage.arrayBuffers),
      after.threads ?? '?',
      mb((after.peakKb ?? 0) * 1024),
      load(),
    ]);
  } finally {
    await served.stop().catch(() => undefined);
    // LIBRARY_KEEP=1 keeps the data dir (to measure searches on it again).
    if (process.env.LIBRARY_KEEP && !reuse) progress(`kept ${dataDir}`);
    rmSync(process.env.LIBRARY_KEEP && !reuse ? join(work, 'base.pdf') : work, { recursive: true, force: true });
  }
  const last = memRows.find((r) => String(r[0]).startsWith(`${BOOKS}, after`)) ?? ['', '(not measured: LIBRARY_DATA)'];
  process.stdout.write(
    `${BOOKS} books of 311 pages (${mb(base.length)} MB each), study-bridge serve (dist/cli.js) in a child process\n\n`,
  );
  printTable(
    ['books', 'RSS MB', 'heap used MB', 'external MB', 'arrayBuffers MB', 'threads', 'peak RSS MB', 'load 1 min'],
    memRows,
  );
  process.stdout.write('\n');
  printTable(
    ['measure', 'now', 'goal', 'previous'],
    [
      [
        `RSS after the idle checkpoint, ${BOOKS} books`,
        `${last?.[1]} MB`,
        '≤ 600 MB',
        `${PREVIOUS.rssMb} MB (100 books)`,
      ],
      [
        `cold search over ${BOOKS} books ("${QUERIES[0][0]}", median of 3: at once / 1 s after the start)`,
        `${Number(searchRows[0][1]).toFixed(0)} / ${Number(searchRows[0][3]).toFixed(0)} ms`,
        '≤ 100 ms',
        `${PREVIOUS.coldMs} ms (100 books)`,
      ],
    ],
  );
  process.stdout.write('\n');
  printTable(
    [
      'query (scope=documents, limit 20)',
      'cold ms at once (median)',
      'runs ms',
      'cold ms 1 s after start (median)',
      'runs ms',
      'bridge CPU ms of the cold query (at once / 1 s)',
      'warm p50 ms',
      'warm p95 ms',
      'answer',
      'load 1 min',
    ],
    searchRows,
  );
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
