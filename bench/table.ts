/** Prints rows as a Markdown table. */
export function printTable(headers: string[], rows: Array<Array<string | number>>): void {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  process.stdout.write(`| ${headers.join(' | ')} |\n|${headers.map(() => '---').join('|')}|\n`);
  for (const r of cells) process.stdout.write(`| ${r.join(' | ')} |\n`);
}

const fmt = (n: number) =>
  Number.isInteger(n) ? String(n) : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
