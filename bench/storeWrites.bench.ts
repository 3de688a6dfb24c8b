// Acknowledged write latency (journal + fsync) at 100k stored cards, next to
// what a full db.export() checkpoint of the same database costs.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { createBridge } from '../src/server/bridge';
import { percentile, printTable } from './table';

const CARDS = 100_000;
const WRITES = 500;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-'));
  const bridge = await createBridge({ dataDir, port: 0, store: { idleCheckpointMs: 0 } });
  const store = bridge.services.store;
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  const set = await client.createStudySet('bench');

  // 100k cards of ~300 bytes each, with their search index rows.
  const t0 = performance.now();
  for (let batch = 0; batch < CARDS / 10_000; batch++) {
    await store.write((tx) => {
      for (let i = 0; i < 10_000; i++) {
        const id = randomUUID().toUpperCase();
        const text = `Card ${batch * 10_000 + i}: ${'lorem ipsum dolor sit amet '.repeat(9)}`;
        tx.run(
          `INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [id, set.topicid, set.rootNoteId, i, text.slice(0, 64), '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
        );
        tx.run(`INSERT INTO note_texts(noteid, idx, text) VALUES (?, 0, ?)`, [id, text]);
        tx.run(`INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)`, [id, set.topicid, text]);
      }
    });
  }
  const loadMs = performance.now() - t0;
  await store.checkpoint();

  // One acknowledged write = one card + its index row, committed and fsynced.
  const storeLat: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const id = randomUUID().toUpperCase();
    const s = performance.now();
    await store.write((tx) => {
      tx.run(
        `INSERT INTO notes(noteid, topicid, parent_id, position, title, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [id, set.topicid, set.rootNoteId, 0, 'x', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
      );
      tx.run(`INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)`, [id, set.topicid, 'bench card']);
    });
    storeLat.push(performance.now() - s);
  }
  // End to end: POST /library/study-sets over HTTP (a topic, a root card, an index row).
  const httpLat: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const s = performance.now();
    await client.createStudySet(`bench ${i}`);
    httpLat.push(performance.now() - s);
  }
  await store.checkpoint();
  const cp = store.lastCheckpoint!;
  storeLat.sort((a, b) => a - b);
  httpLat.sort((a, b) => a - b);
  const rows = store.get<{ c: number }>('SELECT count(*) c FROM notes')!.c;
  printTable(
    ['measure', 'p50 ms', 'p99 ms', 'note'],
    [
      [
        'store.write (1 card + index, fsync)',
        percentile(storeLat, 50),
        percentile(storeLat, 99),
        `${WRITES} writes at ${rows} cards; goal p50 ≤ 5 ms`,
      ],
      [
        'POST /library/study-sets over HTTP',
        percentile(httpLat, 50),
        percentile(httpLat, 99),
        'acknowledged = response received',
      ],
      ['full db.export()', cp.exportMs, cp.exportMs, `${(cp.bytes / 1e6).toFixed(1)} MB database`],
      [
        'full checkpoint (export + write + fsync + rename)',
        cp.exportMs + cp.writeMs,
        cp.exportMs + cp.writeMs,
        'what a write would cost if each one exported',
      ],
    ],
  );
  process.stdout.write(
    `\nloading ${CARDS} cards took ${(loadMs / 1000).toFixed(1)} s; export/write p50 ratio: ${(cp.exportMs / percentile(storeLat, 50)).toFixed(0)}×\n`,
  );
  await bridge.close();
  rmSync(dataDir, { recursive: true, force: true });
}

void main();
