// Anki packages at deck scale: importing a 10,000-note package with 500
// pictures (goal ≤ 5 s) and exporting a 10,000-card deck (goal ≤ 2 s), over
// HTTP against a real bridge. `npm run bench -- anki` runs only this file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../src/client/bridgeClient';
import { createBridge } from '../src/server/bridge';
import { buildApkg, crtDaysAgo, type BuildNote } from '../test/helpers/ankiPackageBuilder';
import { printTable } from './table';

const NOTES = 10_000;
const PICTURES = 500;
const RUNS = 3;

const progress = (what: string) => process.stderr.write(`  … ${what}\n`);

async function pictures(): Promise<Record<string, Uint8Array>> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const out: Record<string, Uint8Array> = {};
  for (let i = 0; i < PICTURES; i++) {
    const c = createCanvas(240, 160);
    const ctx = c.getContext('2d');
    ctx.fillStyle = `hsl(${(i * 37) % 360}, 60%, 55%)`;
    ctx.fillRect(0, 0, 240, 160);
    ctx.fillStyle = '#000';
    ctx.font = '28px sans-serif';
    ctx.fillText(`picture ${i}`, 20, 90);
    out[`pic${i}.png`] = await c.encode('png');
  }
  return out;
}

async function vocabularyPackage(): Promise<Uint8Array> {
  const notes: BuildNote[] = [];
  for (let i = 0; i < NOTES; i++) {
    const reviewed = i % 3 === 0;
    notes.push({
      guid: `bench${i.toString(36)}`,
      model: 'Vocab',
      fields: [
        `word <b>${i}</b>`,
        `meaning of word ${i}`,
        `An example sentence with word ${i}.<br>Another line.`,
        i < PICTURES ? `<img src="pic${i}.png">` : '',
      ],
      tags: [`Level::${i % 10}`, 'bench'],
      cards: [
        reviewed
          ? {
              type: 2,
              queue: 2,
              due: 30 + (i % 60),
              ivl: 1 + (i % 40),
              reps: 3,
              lapses: i % 2,
              factor: 2500,
              data: JSON.stringify({ s: 5 + (i % 30), d: 3 + (i % 5) }),
            }
          : { type: 0, due: i },
      ],
    });
  }
  return buildApkg({
    crt: crtDaysAgo(30),
    models: [{ name: 'Vocab', fields: ['Word', 'Meaning', 'Example', 'Picture'] }],
    decks: ['Bench::Vocabulary'],
    notes,
    media: await pictures(),
  });
}

async function main() {
  progress(`building a ${NOTES}-note package with ${PICTURES} pictures`);
  const apkg = await vocabularyPackage();
  const rows: Array<Array<string | number>> = [];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const importMs: number[] = [];
  const updateMs: number[] = [];
  const exportMs: number[] = [];
  let exportBytes = 0;
  for (let run = 0; run < RUNS; run++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-anki-'));
    const bridge = await createBridge({ dataDir, port: 0, store: { idleCheckpointMs: 0 } });
    const client = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
    try {
      let t0 = performance.now();
      const r = await client.anki.importPackage(apkg, 'bench.apkg');
      importMs.push(performance.now() - t0);
      if (r.created !== NOTES || r.cards !== NOTES || r.media !== PICTURES)
        throw new Error(`import: ${JSON.stringify({ ...r, skipped: r.skipped.length })}`);
      t0 = performance.now();
      const again = await client.anki.importPackage(apkg, 'bench.apkg');
      updateMs.push(performance.now() - t0);
      if (again.updated !== NOTES) throw new Error('re-import did not update');
      t0 = performance.now();
      const out = await client.anki.exportPackage(r.deckId);
      exportMs.push(performance.now() - t0);
      exportBytes = out.bytes.length;
      progress(
        `run ${run + 1}: import ${importMs.at(-1)!.toFixed(0)} ms, re-import ${updateMs.at(-1)!.toFixed(0)} ms, export ${exportMs.at(-1)!.toFixed(0)} ms`,
      );
    } finally {
      await bridge.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const verdict = (ms: number, goal: number) => (ms <= goal ? 'meets' : 'MISSES');
  rows.push([
    `import ${NOTES} notes, ${PICTURES} pictures (${(apkg.length / 1048576).toFixed(1)} MB .apkg), new library`,
    RUNS,
    median(importMs),
    Math.max(...importMs),
    '≤ 5000',
    verdict(median(importMs), 5000),
  ]);
  rows.push([`same package again (updates by guid)`, RUNS, median(updateMs), Math.max(...updateMs), '—', '']);
  rows.push([
    `export ${NOTES}-card deck with ${PICTURES} pictures (${(exportBytes / 1048576).toFixed(1)} MB)`,
    RUNS,
    median(exportMs),
    Math.max(...exportMs),
    '≤ 2000',
    verdict(median(exportMs), 2000),
  ]);
  printTable(['what (HTTP, real bridge)', 'runs', 'median ms', 'max ms', 'goal ms', ''], rows);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
