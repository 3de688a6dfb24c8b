// A heavy user's library (issue 10): 1,000 books of 300 pages (300k pages),
// 100k cards and 1,000 snapshots. Page text comes from the corpus books,
// extracted once for real, and is injected through the path extraction
// uses (DocumentService.ingestPages / finishExtraction), so the bench runs
// in minutes instead of extracting 300k pages. Then the bridge is restarted
// as `study-bridge serve` in a child process and measured over HTTP.
// `npm run bench -- scale`; SCALE_BOOKS, SCALE_SETS (of 1,000 cards) and
// SCALE_SNAPSHOTS make a shorter run.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { createBridge, type Bridge } from '../src/server/bridge';
import type { PageData } from '../src/server/ground/pdf/pdfTypes';
import { buildLibrary, uuid } from './fixtures/cardLibrary';
import { percentile, printTable } from './table';

const BOOKS = Number(process.env.SCALE_BOOKS ?? 1000);
const PAGES_PER_BOOK = 300;
const SETS = Number(process.env.SCALE_SETS ?? 100);
const CARDS_PER_SET = 1000;
const SNAPSHOTS = Number(process.env.SCALE_SNAPSHOTS ?? 1000);
const CORPUS = join(__dirname, '../../shared/corpus');

const progress = (what: string) => process.stderr.write(`  … ${what}\n`);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Bytes under a directory (files only). */
function du(dir: string): number {
  let total = 0;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true }))
      total += e.isDirectory() ? du(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  } catch {
    /* not there */
  }
  return total;
}

/** Marker words give searches of known selectivity: each in a known number of books, on one page. */
const MARKERS: Array<[word: string, everyNthBook: number]> = [
  ['zephyrmark', 100],
  ['quokkamark', 10],
];

/** Book b: 300 real pages from the corpus pool, rotated so books differ, plus its marker words and a word of its own. */
function syntheticBook(pool: PageData[], b: number): PageData[] {
  return Array.from({ length: PAGES_PER_BOOK }, (_, i) => {
    const src = pool[(b * 37 + i) % pool.length];
    const extra = [i === 7 ? `book${b}only` : '', ...MARKERS.filter(([, n]) => b % n === 0 && i === 42).map(([w]) => w)]
      .filter(Boolean)
      .join(' ');
    return { ...src, page: i + 1, text: extra ? `${src.text}\n${extra}` : src.text };
  });
}

/** A tiny distinct PDF per book, so the library folder holds real files. */
function stubPdf(b: number): Buffer {
  return Buffer.from(
    `%PDF-1.4\n% synthetic book ${b}\n1 0 obj <</Type/Catalog>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n`,
  );
}

async function addBook(bridge: Bridge, pool: PageData[], b: number): Promise<string> {
  const { store, extraction, config } = bridge.services;
  const bytes = stubPdf(b);
  const bookmd5 = createHash('md5').update(bytes).digest('hex');
  const filename = `book-${String(b).padStart(4, '0')}.pdf`;
  writeFileSync(join(config.libraryDir, filename), bytes);
  const now = new Date().toISOString();
  await store.write((tx) =>
    tx.run(
      `INSERT INTO documents(bookmd5, filename, folder, size, page_count, extraction_state, extracted_pages, toc_display, added_at, modified_at)
       VALUES (?, ?, '', ?, ?, 'extracting', 0, 'original', ?, ?)`,
      [bookmd5, filename, bytes.length, PAGES_PER_BOOK, now, now],
    ),
  );
  const pages = syntheticBook(pool, b);
  for (let at = 0; at < pages.length; at += 100) await extraction.ingestPages(bookmd5, pages.slice(at, at + 100));
  await extraction.finishExtraction(bookmd5);
  return bookmd5;
}

/** Checkpoint cost with one small pending write (a checkpoint with an empty journal is skipped). */
async function checkpointCost(bridge: Bridge, runs = 3) {
  const { store } = bridge.services;
  const costs: Array<{ exportMs: number; totalMs: number; changedPages: number; pages: number }> = [];
  for (let i = 0; i < runs; i++) {
    await store.write((tx) => tx.run(`INSERT OR REPLACE INTO ui_state(key, value) VALUES ('bench', ?)`, [String(i)]));
    await store.checkpoint();
    costs.push(store.lastCheckpoint!);
  }
  const last = costs[costs.length - 1];
  return {
    exportMs: median(costs.map((c) => c.exportMs)),
    totalMs: median(costs.map((c) => c.totalMs)),
    written: `${last.changedPages} of ${last.pages} pages written`,
  };
}

/** Starts `study-bridge serve` on the data dir; resolves with the child once it listens, and how long that took. */
function serve(dataDir: string): Promise<{ child: ChildProcess; ms: number; baseUrl: string }> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [join(__dirname, '../dist/cli.js'), 'serve', '--data', dataDir, '--port', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ child, ms: performance.now() - t0, baseUrl: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function timed(runs: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  await fn(-1).catch(() => undefined);
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-scale-'));
  const bridge = await createBridge({ dataDir, port: 0, store: { idleCheckpointMs: 0 } });
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 500);
  try {
    // Real pages: the corpus books extracted once, for real.
    const pool: PageData[] = [];
    for (const f of ['asymptote.pdf', '4ti2_manual.pdf', 'CAD.pdf']) {
      const up = await client.uploadDocument(readFileSync(join(CORPUS, f)), { filename: f });
      await bridge.services.extraction.whenReady(up.bookmd5);
      const stored = await bridge.services.pages.storedPages(up.bookmd5, 1, 10_000);
      for (const p of stored)
        if (p.text.trim())
          pool.push({
            page: p.page,
            width: p.width,
            height: p.height,
            text: p.text,
            items: p.items,
            blocks: [],
            ocr: p.ocr === 1,
          });
    }
    progress(`${pool.length} real pages from the corpus`);

    const sets: Array<{ topicid: string; rootNoteId: string }> = [];
    for (let s = 0; s < SETS; s++) {
      const set = await client.createStudySet(`Scale set ${s}`);
      sets.push({ topicid: set.topicid, rootNoteId: set.rootNoteId! });
    }
    let t0 = performance.now();
    await buildLibrary(bridge.services.store, sets, CARDS_PER_SET);
    progress(`${SETS * CARDS_PER_SET} cards in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await bridge.services.store.checkpoint();

    const books: string[] = [];
    const importStart = performance.now();
    let at100: { exportMs: number; totalMs: number; written: string; db: number } | undefined;
    for (let b = 0; b < BOOKS; b++) {
      books.push(await addBook(bridge, pool, b));
      if ((b + 1) % 100 === 0)
        progress(
          `${b + 1} books, ${((performance.now() - importStart) / 1000).toFixed(0)} s, rss ${mb(process.memoryUsage().rss)}`,
        );
      if (b + 1 === Math.min(100, BOOKS))
        at100 = { ...(await checkpointCost(bridge)), db: statSync(join(dataDir, 'library.db')).size };
    }
    const importS = (performance.now() - importStart) / 1000;

    // Snapshots: each after a one-card edit, so every one holds different content.
    t0 = performance.now();
    for (let k = 0; k < SNAPSHOTS; k++) {
      const set = sets[k % SETS];
      const card = uuid((k % SETS) * CARDS_PER_SET + 2 + Math.floor(k / SETS));
      await bridge.services.store.write((tx) =>
        tx.run('UPDATE notes SET title = ? WHERE noteid = ?', [`edited ${k}`, card]),
      );
      await client.request('POST', `/study-sets/${set.topicid}/snapshots`, {
        body: { description: `bench ${k}`, confirm: true },
      });
    }
    progress(`${SNAPSHOTS} snapshots in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const atAll = { ...(await checkpointCost(bridge)), db: statSync(join(dataDir, 'library.db')).size };
    const importPeak = peakRss;
    await bridge.close();
    clearInterval(sampler);

    // Restart to listening: the CLI in a child process, three times.
    const restarts: number[] = [];
    let served = await serve(dataDir);
    for (let i = 0; i < 2; i++) {
      restarts.push(served.ms);
      await stop(served.child);
      served = await serve(dataDir);
    }
    restarts.push(served.ms);
    const remote = BridgeClient.fromDataDir(dataDir);
    const pid = served.child.pid!;

    // GET pages, 60 pages of a book no request has read since the start (the bridge's caches are cold).
    const pageReads = await timed(30, (i) =>
      remote.request('GET', `/documents/${books[(i + 1) * Math.floor(books.length / 32)]}/pages`, {
        query: { start: 1, end: 60 },
      }),
    );

    const queries = [
      'zephyrmark',
      'quokkamark',
      'book7only',
      'markov basis',
      'function',
      'asymp',
      'graver lattice',
      'nonexistentword',
    ];
    const searchRows: Array<Array<string | number>> = [];
    const allSearch: number[] = [];
    for (const q of queries) {
      const ms = await timed(20, () =>
        remote.request('GET', '/search', { query: { q, scope: 'documents', limit: 20 } }),
      );
      const r = await remote.request<{ documents: unknown[]; truncated: boolean; scanned: { pages: number } }>(
        'GET',
        '/search',
        { query: { q, scope: 'documents', limit: 20 } },
      );
      allSearch.push(...ms);
      searchRows.push([
        `search "${q}"`,
        percentile(ms, 50),
        percentile(ms, 95),
        `${r.documents.length} documents${r.truncated ? ', truncated' : ''}, ${r.scanned.pages} pages ranked`,
      ]);
    }
    allSearch.sort((a, b) => a - b);

    const writes = await timed(200, (i) =>
      remote.request('POST', '/notes/metadata', {
        body: { noteIds: [uuid(5)], patch: { colorIndex: (i & 7) + 1 }, confirm: true },
      }),
    );
    const rss = rssOf(pid);
    await stop(served.child);

    const caches = du(join(dataDir, 'cache'));
    const snapshots = du(join(dataDir, 'snapshots'));
    printTable(
      ['measure', 'result', 'goal', 'note'],
      [
        [
          'library',
          `${BOOKS} books, ${BOOKS * PAGES_PER_BOOK} pages`,
          '',
          `${SETS * CARDS_PER_SET} cards in ${SETS} sets, ${SNAPSHOTS} snapshots; import ${importS.toFixed(0)} s`,
        ],
        [
          'bridge RSS, restarted, after the reads below (peak)',
          `${mb(rss.rss)} (${mb(rss.peak)})`,
          '≤ 1 GB',
          'study-bridge serve in a child process',
        ],
        ['RSS during the import (peak)', mb(importPeak), '≤ 1 GB', 'in-process: bridge plus the bench harness'],
        ['library.db', mb(atAll.db), '', `at ${Math.min(100, BOOKS)} books: ${mb(at100!.db)}`],
        ['caches (pages, text index)', mb(caches), '', 'cache/'],
        ['snapshot files', mb(snapshots), '', 'snapshots/'],
        [
          `checkpoint at ${Math.min(100, BOOKS)} books (export / total)`,
          `${at100!.exportMs.toFixed(0)} / ${at100!.totalMs.toFixed(0)} ms`,
          '≤ 300 ms',
          `median of 3 after a one-row write; ${at100!.written}; only the export holds the thread`,
        ],
        [
          `checkpoint at ${BOOKS} books (export / total)`,
          `${atAll.exportMs.toFixed(0)} / ${atAll.totalMs.toFixed(0)} ms`,
          '≤ 300 ms, independent of books',
          atAll.written,
        ],
        [
          'restart to listening',
          `${median(restarts).toFixed(0)} ms`,
          '≤ 2 s',
          `median of 3: ${restarts.map((r) => r.toFixed(0)).join(', ')} ms`,
        ],
        [
          'search across all books p95',
          `${percentile(allSearch, 95).toFixed(1)} ms`,
          '≤ 100 ms',
          `${queries.length} queries × 20, HTTP`,
        ],
        [
          'GET pages, 60 pages, cold cache, p50',
          `${percentile(pageReads, 50).toFixed(1)} ms`,
          '≤ 30 ms',
          `p95 ${percentile(pageReads, 95).toFixed(1)} ms; 30 books not read since the restart`,
        ],
        [
          'acknowledged write p50 (POST /notes/metadata, 1 card)',
          `${percentile(writes, 50).toFixed(2)} ms`,
          '≤ 5 ms',
          `p95 ${percentile(writes, 95).toFixed(2)} ms, HTTP, fsynced`,
        ],
      ],
    );
    process.stdout.write('\n');
    printTable(['query', 'p50 ms', 'p95 ms', 'answer'], searchRows);
  } finally {
    clearInterval(sampler);
    await bridge.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
