// `npm run bench`: runs every bench/*.bench.ts in turn, each in its own process.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
// The PDF benches compare against these; a missing one fails them with a bare ENOENT far down the output.
for (const [tool, pkg] of [
  ['pdftotext', 'poppler-utils'],
  ['qpdf', 'qpdf'],
]) {
  if (spawnSync(tool, ['-v']).error)
    process.stdout.write(
      `(${tool} is not installed: the benches that compare against it fail; apt-get install ${pkg})\n`,
    );
}
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n## ${f.replace('.bench.ts', '')}\n\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
