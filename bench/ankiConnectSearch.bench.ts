// AnkiConnect searches a backtracking matcher could not finish (Front:*a*…*b
// over a 60-character field took over 90 s and froze the bridge), and a
// search over 5,000 notes: time to answer and the longest stall of the event
// loop meanwhile (goal ≤ 250 ms). The matching runs in slices, and the notes
// are read a page of 500 review cards at a time (ankiNotePages.ts), with the
// loop given back between pages; before, one synchronous read of every note
// (~0.3–0.7 s per 5,000 notes here) stalled it.
// `npm run bench -- ankiConnect` runs only this file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createBridge } from '../src/server/bridge';
import { printTable } from './table';

const NOTES = 5_000;
const RUNS = 5;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-ankiconnect-'));
  const bridge = await createBridge({ dataDir, port: 0, ankiConnect: { port: 0 }, store: { idleCheckpointMs: 0 } });
  const url = `http://127.0.0.1:${bridge.ankiConnectPort}`;
  const invoke = async (action: string, params: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ action, version: 6, key: bridge.token, params }),
    });
    const json = (await res.json()) as { result: unknown; error: string | null };
    if (json.error) throw new Error(`${action}: ${json.error}`);
    return json.result;
  };
  try {
    const note = (front: string, back = '') => ({
      deckName: 'Bench',
      modelName: 'Basic',
      fields: { Front: front, Back: back },
    });
    await invoke('addNotes', {
      notes: [note('a'.repeat(60)), note('a'.repeat(500)), note('long back', 'a'.repeat(8000))],
    });
    for (let i = 0; i < NOTES; i += 500)
      await invoke('addNotes', {
        notes: Array.from({ length: 500 }, (_, j) => note(`word ${i + j} of the bench`, `meaning ${i + j}`)),
      });
    const cases: Array<[string, string]> = [
      ['Front:*a*a*…*b (68 characters)', `Front:${'*a'.repeat(30)}*b`],
      ['Back:*a*a*b over an 8,000-character field', 'Back:*a*a*b'],
      ['Front:*a*a*a*c over a 500-character field', 'Front:*a*a*a*c'],
      [`plain text over ${NOTES} notes`, 'meaning'],
      ['deck: and a field wildcard', 'deck:Bench Front:word*9*'],
    ];
    const rows: Array<Array<string | number>> = [];
    for (const [label, query] of cases) {
      const times: number[] = [];
      const stall = monitorEventLoopDelay({ resolution: 5 });
      stall.enable();
      for (let run = 0; run < RUNS; run++) {
        const t0 = performance.now();
        await invoke('findNotes', { query });
        times.push(performance.now() - t0);
      }
      stall.disable();
      const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
      const maxStall = stall.max / 1e6;
      rows.push([label, RUNS, median, Math.max(...times), maxStall, maxStall <= 250 ? 'meets' : 'MISSES']);
    }
    printTable(['findNotes query', 'runs', 'median ms', 'max ms', 'longest loop stall ms', 'stall ≤ 250 ms'], rows);
  } finally {
    await bridge.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
