// The card library at 100k cards: each route over HTTP beside the same
// operation in the store alone (the service call or SQL the route runs,
// without HTTP, routing, validation or JSON). `npm run bench -- cards` runs
// only this file.
import { UNNAMED_AGENT } from '../src/server/actor';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { batchGet } from '../src/server/domain/cards/batchGet';
import { readTree, TREE_SQL } from '../src/server/domain/cards/cardTree';
import { editMetadata } from '../src/server/domain/cards/noteMetadata';
import { createAgentSnapshot } from '../src/server/domain/cards/snapshots';
import { restoreSnapshot } from '../src/server/domain/cards/snapshotRestore';
import { createBridge } from '../src/server/bridge';
import type { Store } from '../src/server/ground/store/store';
import { percentile, printTable } from './table';
import { buildLibrary, uuid } from './fixtures/cardLibrary';

const CARDS = 100_000;
const SETS = 10; // 10 sets of 10k cards: the first one is the set the tree and snapshot rows use
const PER_SET = CARDS / SETS;
const BATCH = 200;
const RUNS = 60;
const SNAPSHOT_RUNS = 5;

type Timing = { p50: number; p95: number };
/** `timesItself`: fn answers the milliseconds to count (it does untimed work first). */
async function time(runs: number, fn: (i: number) => unknown, timesItself = false): Promise<Timing> {
  const started = performance.now();
  // Warm. An in-process phase longer than the server's 5 s keep-alive can leave the
  // client a closed socket: the first request then fails once and is simply sent again.
  await Promise.resolve(fn(-1)).catch(() => fn(-1));
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const own = await fn(i);
    ms.push(timesItself ? (own as number) : performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  progress(`${runs} runs in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

const progress = (what: string) => process.stderr.write(`  … ${what}\n`);

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-cards-'));
  const bridge = await createBridge({ dataDir, port: 0, store: { idleCheckpointMs: 0 } });
  const { store, ui } = bridge.services;
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  const rows: Array<Array<string | number>> = [];
  // `before`: the figures issue 20 measured on main when filed, then on main before the srv20 changes, then main before srv20c run back to
  // back with it at load 1-3 (HTTP p50 unless it says otherwise).
  const row = (what: string, http: Timing, alone: Timing, goal: string, note = '', before = '') =>
    rows.push([what, http.p50, http.p95, alone.p50, alone.p95, goal, before, note]);
  try {
    const sets: Array<{ topicid: string; rootNoteId: string }> = [];
    for (let s = 0; s < SETS; s++) {
      const set = await client.createStudySet(`Bench set ${s}`);
      sets.push({ topicid: set.topicid, rootNoteId: set.rootNoteId! });
    }
    const t0 = performance.now();
    await buildLibrary(store, sets, PER_SET, { cjk: true }); // a Chinese sentence on every card too, as cardSearch.bench.ts has
    const loadS = (performance.now() - t0) / 1000;
    progress(`library built in ${loadS.toFixed(1)} s`);
    await store.checkpoint({ onThisThread: true });
    const total = store.get<{ n: number }>('SELECT count(*) AS n FROM notes')!.n;
    const big = sets[0];

    // Cards spread over the library (every 500th), 200 per request.
    const ids = (k: number) => Array.from({ length: BATCH }, (_, j) => uuid(1 + ((k * 7919 + j * 499) % CARDS)));
    const post = (path: string, body: unknown) => client.request<any>('POST', path, { body });

    row(
      `POST /notes/batch-get, ${BATCH} cards`,
      await time(RUNS, (i) => post('/notes/batch-get', { noteIds: ids(i + 1) })),
      await time(RUNS, (i) => batchGet(store, ids(i + 1))),
      'p50 ≤ 10 ms',
      'alone = batchGet(store, ids)',
      '32 ms; 17 ms; 20.7 ms',
    );

    // Each run changes every card (alternating colours), so each one writes 200 rows.
    const color = (i: number) => (i & 1 ? 3 : 5);
    row(
      `POST /notes/metadata, ${BATCH} cards, acknowledged`,
      await time(RUNS, (i) =>
        post('/notes/metadata', { noteIds: ids(1000), patch: { colorIndex: color(i) }, confirm: true }),
      ),
      await time(RUNS, (i) => editMetadata(store, ids(2000), { colorIndex: color(i) }, UNNAMED_AGENT)),
      'p50 ≤ 15 ms',
      'alone = editMetadata(): write + fsync + read-back',
      '28 ms; 20 ms; 20.4 ms',
    );
    const sqlOnly = await time(RUNS, (i) =>
      store.write((tx) => {
        for (const id of ids(3000))
          tx.run('UPDATE notes SET color_index = ?, modified_at = ? WHERE noteid = ?', [
            color(i),
            new Date().toISOString(),
            id,
          ]);
      }),
    );
    rows.push([
      `  the same ${BATCH} UPDATEs in one store.write (fsync)`,
      '',
      '',
      sqlOnly.p50,
      sqlOnly.p95,
      '',
      '',
      'the floor: SQL + journal fsync',
    ]);

    // Card search at this scale (Latin and CJK, with the window SQL beside it) is bench/cardSearch.bench.ts.

    const tree = await client
      .request<any>('GET', `/study-sets/${big.topicid}/tree`)
      .catch(() => client.request<any>('GET', `/study-sets/${big.topicid}/tree`));
    row(
      `GET /study-sets/{id}/tree, ${tree.count} cards, unchanged since the last read`,
      await time(20, () => client.request<any>('GET', `/study-sets/${big.topicid}/tree`)),
      await time(20, () => readTree(store, big.topicid)),
      'p50 ≤ 50 ms',
      'the answer kept since the last read (http/answerCache.ts); alone = readTree(store, id)',
      '160 ms; 95 ms; 164 ms; 92 ms (before the kept answer)',
    );
    // The same after a one-card edit each time: the answer is made again (the tree's rows packed by SQLite).
    const edit = (i: number) => editMetadata(store, [uuid(2)], { colorIndex: color(i) }, UNNAMED_AGENT);
    row(
      `GET /study-sets/{id}/tree, ${tree.count} cards, after a one-card edit`,
      await time(
        20,
        async (i) => {
          await edit(i);
          const t = performance.now();
          await client.request<any>('GET', `/study-sets/${big.topicid}/tree`);
          return performance.now() - t;
        },
        true,
      ),
      await time(20, () => readTree(store, big.topicid)),
      '',
      'each run edits one card first (not timed), so the answer is made anew',
      '92 ms (one query per column row)',
    );
    // The floor of the tree inside sql.js: its one query, rows read out as objects, nothing shaped.
    const treeSql = await time(20, () => store.all(TREE_SQL, [big.topicid]));
    rows.push([
      `  the tree's query alone (${PER_SET + 1} rows out of sql.js)`,
      '',
      '',
      treeSql.p50,
      treeSql.p95,
      '',
      '',
      "the store part's floor",
    ]);
    // The floor of the tree over HTTP: the same answer serialised and parsed again, without the store.
    const treeJson = JSON.stringify(tree);
    const serialise = await time(20, () => JSON.parse(JSON.stringify(JSON.parse(treeJson))));
    rows.push([
      `  the tree's JSON alone (${(treeJson.length / 2 ** 20).toFixed(1)} MB): stringify + parse`,
      '',
      '',
      serialise.p50,
      serialise.p95,
      '',
      '',
      'part of the HTTP time that is not the store',
    ]);

    // Snapshot then restore of the 10k-card set; one card changes first so the snapshot is new, not reused.
    const touch = (i: number) => editMetadata(store, [uuid(1)], { fillIndex: i & 1 ? 1 : 2 }, UNNAMED_AGENT);
    const snapMs: number[] = [];
    const restoreMs: number[] = [];
    const aloneSnapMs: number[] = [];
    const aloneRestoreMs: number[] = [];
    await client.request('GET', '/status').catch(() => undefined); // see time(): a stale keep-alive socket
    for (let i = 0; i < SNAPSHOT_RUNS + 1; i++) {
      await touch(i);
      let t = performance.now();
      const snap = await post(`/study-sets/${big.topicid}/snapshots`, { description: `bench ${i}` });
      const s = performance.now() - t;
      if (!snap.created) throw new Error('snapshot reused: the set did not change');
      await touch(i + 1);
      t = performance.now();
      const restored = await post(`/snapshots/${snap.snapshotId}/restore`, { confirm: true, force: true });
      const r = performance.now() - t;
      if (restored.noteCount !== PER_SET + 1) throw new Error(`restored ${restored.noteCount} cards`);

      await touch(i);
      t = performance.now();
      const snap2 = await createAgentSnapshot(store, bridge.services.snapshotFiles, big.topicid, `bench alone ${i}`);
      const s2 = performance.now() - t;
      await touch(i + 1);
      t = performance.now();
      await restoreSnapshot(store, bridge.services.snapshotFiles, ui, snap2.snapshotId, {
        force: true,
        actor: UNNAMED_AGENT,
      });
      const r2 = performance.now() - t;
      if (i === 0) continue; // warm-up
      snapMs.push(s);
      restoreMs.push(r);
      aloneSnapMs.push(s2);
      aloneRestoreMs.push(r2);
    }
    const stat = (a: number[]): Timing => {
      const s = [...a].sort((x, y) => x - y);
      return { p50: percentile(s, 50), p95: percentile(s, 95) };
    };
    const sum = (a: number[], b: number[]) => a.map((x, i) => x + b[i]);
    row(
      `POST /study-sets/{id}/snapshots, ${PER_SET + 1} cards`,
      stat(snapMs),
      stat(aloneSnapMs),
      '',
      'alone = createAgentSnapshot()',
    );
    row(
      `POST /snapshots/{id}/restore, ${PER_SET + 1} cards`,
      stat(restoreMs),
      stat(aloneRestoreMs),
      '',
      'alone = restoreSnapshot()',
    );
    row(
      'snapshot + restore',
      stat(sum(snapMs, restoreMs)),
      stat(sum(aloneSnapMs, aloneRestoreMs)),
      '≤ 500 ms',
      `${SNAPSHOT_RUNS} runs; restore compares only cards stamped since the snapshot (card_edits)`,
      '1.3–2.2 s; 547–674 ms (before SBSNAP03)',
    );

    // Checkpoint of the whole library after a one-row write (one with an empty journal is skipped): exported on the store's
    // thread (as before, and still below offThreadCheckpointBytes), then built by a worker from library.db and the journal
    // (the default at this size). The event loop's longest stall during each is what a request arriving then would wait.
    const ckptRows = async (label: string, opts: { onThisThread?: boolean }) => {
      const runs: Array<NonNullable<Store['lastCheckpoint']> & { stallMs: number }> = [];
      for (let i = 0; i < 3; i++) {
        const journal = store.journalBytes;
        const drained = store.lastCheckpoint;
        await store.checkpoint(); // one the journal's size started (restores write a lot) ends first: this run's is its own
        if (store.lastCheckpoint !== drained)
          progress(
            `a checkpoint of ${(journal / 2 ** 20).toFixed(1)} MB of journal ended first: ${JSON.stringify(store.lastCheckpoint)}`,
          );
        await store.write((tx) =>
          tx.run(`INSERT OR REPLACE INTO ui_state(key, value) VALUES ('bench', ?)`, [`${label} ${i}`]),
        );
        const loop = monitorEventLoopDelay({ resolution: 5 });
        loop.enable();
        await new Promise((r) => setTimeout(r, 20)); // the monitor's first turn: a stall before it would go unrecorded
        await store.checkpoint(opts);
        loop.disable();
        runs.push({ ...store.lastCheckpoint!, stallMs: loop.max / 1e6 });
      }
      const hold = stat(runs.map((c) => c.holdMs));
      const totalMs = stat(runs.map((c) => c.totalMs));
      const stall = stat(runs.map((c) => c.stallMs));
      const last = runs[runs.length - 1];
      const how = runs.every((r) => r.builtOffThread === !opts.onThisThread) ? '' : ' (SOME RUNS FELL BACK)';
      rows.push([
        `checkpoint at ${total} cards, ${label}: store thread held${how}`,
        '',
        '',
        hold.p50,
        hold.p95,
        '≤ 300 ms',
        '268–385 ms export; ~1.3 s',
        `3 runs; longest event-loop stall ${stall.p50.toFixed(0)} / ${stall.p95.toFixed(0)} ms (p50 / p95)`,
      ]);
      rows.push([
        `checkpoint at ${total} cards, ${label}: total`,
        '',
        '',
        totalMs.p50,
        totalMs.p95,
        '',
        '332–481 ms; 1.3–1.7 s',
        `library.db ${(last.bytes / 2 ** 20).toFixed(0)} MB; ${last.changedPages} of ${last.pages} pages written`,
      ]);
      return last;
    };
    await ckptRows('exported on the store thread', { onThisThread: true });
    const last = await ckptRows('built off the thread (default at ≥ 16 MiB)', {});

    // The floor of a checkpoint inside sql.js: export() writes the whole file into a new buffer every time, and on
    // this machine faulting in that many fresh pages costs far more than the copy (a reused buffer takes a few ms).
    const fill = (buf: Uint8Array) => {
      const t = performance.now();
      buf.fill(1);
      return performance.now() - t;
    };
    const fresh = stat(Array.from({ length: 3 }, () => fill(new Uint8Array(last.bytes))));
    const reused = new Uint8Array(last.bytes);
    fill(reused);
    const again = stat(Array.from({ length: 3 }, () => fill(reused)));
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
    rows.push([
      `  a fresh ${mb(last.bytes)} buffer written once`,
      '',
      '',
      fresh.p50,
      fresh.p95,
      '',
      '',
      `the export's floor (sql.js allocates it); the same into a reused buffer: ${again.p50.toFixed(0)} ms`,
    ]);
    const ftsCopy = store.get<{ b: number }>('SELECT sum(length(CAST(c2body AS BLOB))) AS b FROM notes_fts_content')!.b;
    rows.push([
      `  the card index's own copy of each text (notes_fts_content)`,
      '',
      '',
      '',
      '',
      '',
      '',
      `${mb(ftsCopy)} of ${mb(last.bytes)}: what a contentless index could take off the export`,
    ]);

    // The rows above share one thread between the client and the bridge. An agent is another process: batch-get
    // again against `study-bridge serve` (dist/cli.js) on the same data dir, the bridge's work and the client's apart.
    await bridge.close();
    const apart = await fromAnotherProcess(dataDir, ids);
    rows.push([
      `  POST /notes/batch-get, ${BATCH} cards, the bridge in another process: fetch + body text`,
      apart.raw.p50,
      apart.raw.p95,
      '',
      '',
      'p50 ≤ 10 ms',
      '',
      'as an agent meets it (study-bridge serve)',
    ]);
    rows.push([
      `  the same through BridgeClient (its JSON parse and checks)`,
      apart.client.p50,
      apart.client.p95,
      '',
      '',
      '',
      '',
      '',
    ]);

    printTable(
      [
        'measure',
        'HTTP p50 ms',
        'HTTP p95 ms',
        'store alone p50 ms',
        'store alone p95 ms',
        'goal',
        'before (issue 20; main before srv20; main before srv20c, back to back)',
        'note',
      ],
      rows,
    );
    process.stdout.write(
      `\n${total} cards in ${SETS} sets; building them with direct store writes took ${loadS.toFixed(1)} s\n`,
    );
  } finally {
    await bridge.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** batch-get timed from this process against `study-bridge serve` on `dataDir` (raw fetch, then BridgeClient). */
async function fromAnotherProcess(
  dataDir: string,
  ids: (k: number) => string[],
): Promise<{ raw: Timing; client: Timing }> {
  const child = spawn(
    process.execPath,
    [join(__dirname, '../dist/cli.js'), 'serve', '--data', dataDir, '--port', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (/listening on/.test(out)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
    const client = BridgeClient.fromDataDir(dataDir);
    const headers = {
      authorization: `Bearer ${readFileSync(join(dataDir, 'token'), 'utf8').trim()}`,
      'content-type': 'application/json',
    };
    const raw = await time(RUNS, async (i) =>
      (
        await fetch(`${client.baseUrl}/notes/batch-get`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ noteIds: ids(i + 1) }),
        })
      ).text(),
    );
    const viaClient = await time(RUNS, (i) =>
      client.request('POST', '/notes/batch-get', { body: { noteIds: ids(i + 1) } }),
    );
    return { raw, client: viaClient };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}

void main();
