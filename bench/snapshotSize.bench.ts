// What 100 snapshots of a 10k-card set cost on disk: library.db after a
// checkpoint, the journal before it, and the snapshot files. Only routes and
// plain store writes, so the same file measures any build. `npm run bench -- snapshotSize`.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { createBridge } from '../src/server/bridge';
import { printTable } from './table';

const CARDS = 10_000;
const SNAPSHOTS = 100;

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`.toUpperCase();
const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
function treeSize(dir: string): { bytes: number; files: number } {
  if (!existsSync(dir)) return { bytes: 0, files: 0 };
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    bytes += statSync(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)).size;
    files++;
  }
  return { bytes, files };
}
const mb = (b: number) => b / 1024 / 1024;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-snapsize-'));
  const bridge = await createBridge({ dataDir, port: 0, store: { idleCheckpointMs: 0, checkpointBytes: 2 ** 40 } });
  const { store } = bridge.services;
  const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
  try {
    const set = await client.createStudySet('Snapshot size');
    const now = '2026-01-01T00:00:00Z';
    await store.write((tx) => {
      for (let i = 1; i <= CARDS; i++) {
        const id = uuid(i);
        const title = `card ${i} ${(i * 7919).toString(36)}`;
        const body = `lorem ipsum ${(i * 104729).toString(36)} dolor sit amet ${i % 97} consectetur ${(i * 31).toString(36)}`;
        tx.run(
          'INSERT INTO notes(noteid, topicid, parent_id, position, title, color_index, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [id, set.topicid, set.rootNoteId!, i, title, i % 16, now, now],
        );
        tx.run('INSERT INTO note_texts(noteid, idx, text) VALUES (?, 0, ?)', [id, body]);
        tx.run('INSERT INTO notes_fts(noteid, topicid, body) VALUES (?, ?, ?)', [id, set.topicid, `${title}\n${body}`]);
      }
    });
    await store.checkpoint();
    const dbBefore = size(join(dataDir, 'library.db'));
    let ms = 0;
    for (let i = 0; i < SNAPSHOTS; i++) {
      // One card changes, so every snapshot is new content (none reused).
      await client.request('POST', '/notes/metadata', {
        body: { noteIds: [uuid(1 + (i % CARDS))], patch: { colorIndex: (((1 + i) % 16) + 1) % 16 }, confirm: true },
      });
      const t0 = performance.now();
      const snap = await client.request<{ created: boolean }>('POST', `/study-sets/${set.topicid}/snapshots`, {
        body: { description: `size ${i}` },
      });
      ms += performance.now() - t0;
      if (!snap.created) throw new Error('snapshot reused');
    }
    const journal = size(join(dataDir, 'library.journal'));
    const t0 = performance.now();
    await store.checkpoint();
    const checkpointMs = performance.now() - t0;
    const dbAfter = size(join(dataDir, 'library.db'));
    const files = treeSize(join(dataDir, 'snapshots'));
    printTable(
      ['measure', 'value'],
      [
        [`library.db, ${CARDS} cards, no snapshots (MB)`, mb(dbBefore)],
        [`library.db after ${SNAPSHOTS} snapshots + checkpoint (MB)`, mb(dbAfter)],
        [`journal before that checkpoint (MB)`, mb(journal)],
        [`checkpoint after ${SNAPSHOTS} snapshots (ms)`, checkpointMs],
        [`snapshots/ folder (MB, files)`, `${mb(files.bytes).toFixed(1)} MB in ${files.files} files`],
        [`POST snapshots, mean (ms)`, ms / SNAPSHOTS],
      ],
    );
  } finally {
    await bridge.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
