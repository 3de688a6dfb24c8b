// Anchor geometry by measurement: where each quote's rectangles begin and end against poppler's word boxes
// (pdftotext -bbox-layout), over every positive quote of the labelled anchoring set and windows of a LaTeX-like
// pdf-lib PDF and a Chromium-printed page (test/anchoring/geometry.ts). Goal: ≥ 99 % within 1 pt at both ends,
// none beyond 3 pt. "before" places characters as the bridge did until glyph edges: an even share of their item's
// width, and no punctuation the quote ends with.
import { geometrySet, measureQuote, type GeometryResult } from '../test/anchoring/geometry';
import { sharedPool } from '../test/unit/pdfExtracted';
import { printTable } from './table';

const BUCKETS: [string, (e: number) => boolean][] = [
  ['≤ 0.25 pt', (e) => e <= 0.25],
  ['≤ 0.5 pt', (e) => e <= 0.5],
  ['≤ 1 pt', (e) => e <= 1],
  ['≤ 3 pt', (e) => e <= 3],
  ['> 3 pt', (e) => e > 3],
];

const worst = (r: GeometryResult) => Math.max(Math.abs(r.start!), Math.abs(r.end!));

function rows(label: string, results: GeometryResult[]): (string | number)[][] {
  const measured = results.filter((r) => r.start !== undefined);
  const pct = (n: number) => `${((100 * n) / Math.max(1, measured.length)).toFixed(1)} % (${n})`;
  const ends = (pick: (r: GeometryResult) => number) =>
    BUCKETS.map(([, ok]) => pct(measured.filter((r) => ok(Math.abs(pick(r)))).length));
  return [
    [`${label}: start`, measured.length, results.length - measured.length, ...ends((r) => r.start!)],
    [`${label}: end`, measured.length, '', ...ends((r) => r.end!)],
    [`${label}: both ends`, measured.length, '', ...ends(worst)],
  ];
}

async function main() {
  const { results, books } = await geometrySet();
  // Before: even shares inside each item, the quote's end punctuation left out (what the key matched).
  const before = results.map((r) => {
    const b = books.get(r.quote.book)!;
    const items = (b.pages[r.quote.page - 1]?.items ?? []).map(({ gx: _g, asc: _a, desc: _d, ...it }) => it);
    const text = r.quote.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    return measureQuote(items, b.words[r.quote.page - 1] ?? [], { ...r.quote, text });
  });
  const producers = [...new Set(results.map((r) => r.quote.producer))];
  process.stdout.write(
    `quotes: ${results.length} (${producers.map((p) => `${p} ${results.filter((r) => r.quote.producer === p).length}`).join(', ')}); ` +
      `error = our rectangle's left edge − poppler's first word xMin, our right edge − its last word xMax (absolute)\n\n`,
  );
  printTable(
    ['set', 'measured', 'unmatched', ...BUCKETS.map(([b]) => b)],
    [
      ...rows('before (even shares)', before),
      ...rows('after (glyph edges), all', results),
      ...producers.flatMap((p) =>
        rows(
          `after, ${p}`,
          results.filter((r) => r.quote.producer === p),
        ).slice(2),
      ),
    ],
  );
  const measured = results.filter((r) => r.start !== undefined).sort((a, b) => worst(b) - worst(a));
  process.stdout.write('\nworst five after (goal: ≥ 99 % within 1 pt at both ends, none beyond 3 pt):\n');
  for (const r of measured.slice(0, 5))
    process.stdout.write(
      `  ${r.quote.book} p${r.quote.page} start ${r.start!.toFixed(2)} end ${r.end!.toFixed(2)}: ${r.quote.text}\n`,
    );
  const unmatched = results.filter((r) => r.unmatched);
  if (unmatched.length) process.stdout.write(`\nunmatched ${unmatched.length}:\n`);
  for (const r of unmatched.slice(0, 8))
    process.stdout.write(`  ${r.quote.book} p${r.quote.page} ${r.unmatched}: ${r.quote.text}\n`);
  await sharedPool().close();
}

void main()
  .then(() => process.exit(0))
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
