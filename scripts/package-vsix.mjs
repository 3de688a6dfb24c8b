#!/usr/bin/env node
// npm run package [-- --target <t>] | npm run package:all: production build, then one VSIX per target.
//  1. `node esbuild.mjs --production` into the stage .cache/vsix/ (vscode external; wasm/PDF/OCR assets).
//  2. Modules the bundles still `require` at run time (esbuild externals such as
//     @napi-rs/canvas, tesseract.js) are found by scanning the bundles and copied,
//     with their dependency closure, into <stage>/dist/node_modules/ — so vsce runs with
//     --no-dependencies and nothing else from node_modules ships. Platform packages (an
//     `os`/`cpu` in their package.json: the native binaries) are left out there.
//  3. Per target: that target's platform packages come from the npm registry (npm install
//     --os --cpu --libc into .cache/vsix-native/<target>), join the stage, and
//     `vsce package --target <t>` zips it. The VSIX is then opened and its native files
//     checked by header (scripts/nativeTargets.mjs): another target's binary, or none, fails.
//  4. Prints a table of target, size and native files; a VSIX over 30 MB fails.
// Options: --target <t> (repeatable; default: this machine's), --all, --out-dir <dir> (default: the repo root;
// the stage then lives in <dir>/stage, so a test can package beside a developer's run).
import { execFileSync } from 'node:child_process';
import { builtinModules, createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderIcon } from './icon.mjs';
import { TARGETS, hostTarget, inspectVsix } from './nativeTargets.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const optionValues = (name) => argv.flatMap((a, i) => (a === name && argv[i + 1] ? [argv[i + 1]] : []));
const outDir = resolve(optionValues('--out-dir')[0] ?? root);
const targets = argv.includes('--all') ? Object.keys(TARGETS) : optionValues('--target');
if (!targets.length) targets.push(hostTarget());
for (const t of targets)
  if (!TARGETS[t]) throw new Error(`unknown target ${t}; one of ${Object.keys(TARGETS).join(', ')}`);
const MAX_MB = 30;
// Staged outside dist/ so a concurrent `npm run build` cannot change files while vsce zips them.
const stage = outDir === root ? join(root, '.cache', 'vsix') : join(outDir, 'stage');
const dist = join(stage, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const log = (m) => process.stdout.write(`[package] ${m}\n`);
const t0 = Date.now();

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
execFileSync(process.execPath, ['esbuild.mjs', '--production', `--outdir=${dist}`], { cwd: root, stdio: 'inherit' });
for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', '.vscodeignore', 'media']) {
  if (existsSync(join(root, f))) cpSync(join(root, f), join(stage, f), { recursive: true });
}
if (pkg.icon) writeFileSync(join(stage, pkg.icon), renderIcon(join(root, 'media', 'study-bridge.svg'), root));
// The README's screenshots live in docs/, which the VSIX does not carry: drop their image lines there.
writeFileSync(
  join(stage, 'README.md'),
  readFileSync(join(root, 'README.md'), 'utf8').replace(/^!\[[^\]]*\]\(docs\/[^)]*\)\n?/gm, ''),
);

// ── run-time requires left in the bundles ──
const builtins = new Set([...builtinModules, 'vscode']);
const wanted = new Set();
const skippedResolves = new Set();
// The esbuild externals (modules meant to be loaded at run time), read from esbuild.mjs.
const externalsSource = /external:\s*\[([^\]]*)\]/.exec(readFileSync(join(root, 'esbuild.mjs'), 'utf8'))?.[1] ?? '';
const externals = new Set([...externalsSource.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]));
if (process.env.PACKAGE_EXTRA_MODULES) for (const x of process.env.PACKAGE_EXTRA_MODULES.split(',')) wanted.add(x);
for (const f of readdirSync(dist)) {
  if (!f.endsWith('.js')) continue;
  const src = readFileSync(join(dist, f), 'utf8');
  // require("x"), require.resolve("x/…"), and import("x") (esbuild keeps dynamic imports of externals).
  // A match right after a quote is inside a string (e.g. code that ajv generates), not a call.
  for (const m of src.matchAll(/(?<!["'`])\b(require\.resolve|require|import)\(\s*["']([^"'./$][^"'$]*)["']\s*\)/g)) {
    const isResolve = m[1] === 'require.resolve';
    const spec = m[2];
    if (spec.startsWith('node:')) continue;
    // require.resolve('pkg/file.ext') of an asset already copied beside the bundles is a dev fallback.
    if (
      isResolve &&
      /\.[a-z0-9]+$/i.test(spec) &&
      !spec.endsWith('package.json') &&
      existsSync(join(dist, basename(spec)))
    )
      continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (builtins.has(name)) continue;
    // require.resolve of a package esbuild bundles is a dev fallback for its assets (esbuild.mjs copies those).
    if (isResolve && !externals.has(name)) {
      skippedResolves.add(name);
      continue;
    }
    wanted.add(name);
  }
  // An external loaded through a name held in a variable (`const m = '@napi-rs/canvas'; require(m)`) leaves only
  // the quoted name behind: it ships too.
  for (const ext of externals) {
    if (builtins.has(ext)) continue;
    const quoted = new RegExp(`(?<!require\\.resolve\\(\\s*)["']${ext.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}["']`);
    if (quoted.test(src)) wanted.add(ext.startsWith('@') ? ext.split('/').slice(0, 2).join('/') : ext.split('/')[0]);
  }
}
if (skippedResolves.size)
  log(`bundled, not shipped as modules (assets come from esbuild.mjs): ${[...skippedResolves].join(', ')}`);

// ── dependency closure, as installed (optional deps only when present: this platform's binaries) ──
const closure = new Map(); // name -> dir
const missing = [];
function pkgDir(name, fromDir) {
  const req = createRequire(join(fromDir, 'noop.js'));
  try {
    return dirname(req.resolve(`${name}/package.json`));
  } catch {
    // packages whose "exports" hide package.json
    for (let d = fromDir; ; d = dirname(d)) {
      const candidate = join(d, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return candidate;
      if (dirname(d) === d) return undefined;
    }
  }
}
function visit(name, fromDir, optional) {
  if (closure.has(name)) return;
  const dir = pkgDir(name, fromDir);
  if (!dir) {
    if (!optional) missing.push(name);
    return;
  }
  closure.set(name, dir);
  const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const d of Object.keys(p.dependencies ?? {})) visit(d, dir, false);
  for (const d of Object.keys(p.optionalDependencies ?? {})) visit(d, dir, true);
}
for (const name of wanted) visit(name, root, false);
// A require that resolves nowhere is an optional one inside a try (e.g. node-fetch's "encoding").
if (missing.length) log(`not installed, left out (optional requires): ${missing.join(', ')}`);

// Files of shipped modules that never run here (sizes as of tesseract.js 7 / @tesseract.js-data/eng 1.0.0):
//  - tesseract.js-core *.wasm.js: browser builds with the wasm inlined as base64 (Node loads *.js + *.wasm), ~33 MB;
//  - @tesseract.js-data/eng/4.0.0: the legacy-engine model; pageOcr.ts uses OEM.LSTM_ONLY with 4.0.0_best_int, ~11 MB;
//  - tesseract.js-core builds without "-lstm": only loaded for the legacy engine (which also needs the pruned model), ~10 MB.
const prune = [
  (rel) => /^tesseract\.js-core\/[^/]+\.wasm\.js$/.test(rel),
  (rel) => /^tesseract\.js-core\/tesseract-core(-simd|-relaxedsimd)?\.(js|wasm)$/.test(rel),
  (rel) => rel.startsWith('@tesseract.js-data/eng/4.0.0/'),
  (rel) => /\.(md|markdown|ts|map)$/i.test(rel) && !/LICEN[CS]E/i.test(rel),
  // zlibjs (tesseract.js's gunzip): Node loads bin/node-zlib.js; the other builds are for browsers, ~2 MB.
  (rel) => /^zlibjs\/bin\/(?!node-zlib\.js$)[^/]+$/.test(rel),
];

// Platform packages (os/cpu in package.json) are the native binaries: each target brings its own (step 3).
const isPlatformPackage = (dir) => {
  const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return Boolean(p.os || p.cpu);
};
const nativeParents = []; // name@version of shipped modules whose optional dependencies carry the binaries
for (const [name, dir] of closure) {
  if (isPlatformPackage(dir)) continue;
  const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (Object.keys(p.optionalDependencies ?? {}).length) nativeParents.push(`${name}@${p.version}`);
  const dest = join(dist, 'node_modules', name);
  cpSync(dir, dest, {
    recursive: true,
    dereference: true,
    filter: (src) => {
      if (/[\\/](test|tests|docs?|\.github)$/.test(src)) return false;
      const rel = `${name}/${src.slice(dir.length + 1).replace(/\\/g, '/')}`;
      return !prune.some((p) => p(rel));
    },
  });
}
log(`run-time modules: ${[...wanted].join(', ') || 'none'} (+${closure.size - wanted.size} dependencies)`);
log(`native modules: ${nativeParents.join(', ') || 'none'}`);

/** The target's platform packages, installed from the npm registry into a cache of their own (reused when there). */
function platformPackages(target) {
  const { os, cpu, libc } = TARGETS[target];
  const dir = join(root, '.cache', 'vsix-native', target);
  const manifest = JSON.stringify({
    name: `study-bridge-native-${target}`,
    private: true,
    dependencies: Object.fromEntries(nativeParents.map((s) => [s.slice(0, s.lastIndexOf('@')), s.split('@').pop()])),
  });
  const stamp = join(dir, '.installed');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== manifest) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), manifest);
    const flags = [`--os=${os}`, `--cpu=${cpu}`, ...(libc ? [`--libc=${libc}`] : [])];
    // npm's own CLI under this Node when npm started us; `npm` on PATH otherwise.
    const npm = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];
    const args = ['install', ...flags, '--ignore-scripts', '--no-package-lock', '--no-fund', '--no-audit'];
    execFileSync(npm[0], [...npm.slice(1), ...args, '--loglevel=error'], {
      cwd: dir,
      stdio: 'inherit',
      shell: npm[0] === 'npm' && process.platform === 'win32',
    });
    writeFileSync(stamp, manifest);
  }
  const found = [];
  const modules = join(dir, 'node_modules');
  for (const e of readdirSync(modules)) {
    const names = e.startsWith('@') ? readdirSync(join(modules, e)).map((n) => `${e}/${n}`) : [e];
    for (const name of names)
      if (existsSync(join(modules, name, 'package.json')) && isPlatformPackage(join(modules, name)))
        found.push([name, join(modules, name)]);
  }
  return found;
}

// ── VSIX per target ──
// The canvas (rendering) is native: a VSIX without any native module would be one that cannot render anywhere.
if (!nativeParents.length)
  throw new Error('no native module found among the run-time modules: expected @napi-rs/canvas');
mkdirSync(outDir, { recursive: true });
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const rows = [];
let failed = false;
for (const target of targets) {
  const t1 = Date.now();
  const added = platformPackages(target);
  for (const [name, dir] of added)
    cpSync(dir, join(dist, 'node_modules', name), { recursive: true, dereference: true });
  const out = join(outDir, `${pkg.name}-${pkg.version}-${target}.vsix`);
  rmSync(out, { force: true });
  const args = [vsce, 'package', '--no-dependencies', '--target', target, '--out', out];
  execFileSync(process.execPath, args, { cwd: stage, stdio: targets.length > 1 ? 'pipe' : 'inherit' });
  for (const [name] of added) rmSync(join(dist, 'node_modules', name), { recursive: true, force: true });

  const mb = statSync(out).size / 1024 / 1024;
  const { natives, errors } = await inspectVsix(readFileSync(out), target);
  if (mb > MAX_MB) errors.push(`${basename(out)}: ${mb.toFixed(1)} MB, over ${MAX_MB} MB`);
  for (const e of errors) process.stderr.write(`[package] ERROR ${e}\n`);
  failed ||= errors.length > 0;
  const nativeList = natives.map(
    (n) => `${n.path.split('/').pop()} (${n.format} ${n.cpu}${n.libc ? ` ${n.libc}` : ''})`,
  );
  rows.push([
    target,
    `${mb.toFixed(1)} MB`,
    nativeList.join(', ') || '-',
    `${((Date.now() - t1) / 1000).toFixed(0)} s`,
  ]);
  log(`VSIX ${out}`);
}

const widths = [0, 1, 2, 3].map((i) =>
  Math.max(...[['target', 'size', 'native files', 'time'], ...rows].map((r) => r[i].length)),
);
for (const r of [['target', 'size', 'native files', 'time'], ...rows])
  log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
log(`${rows.length} VSIX in ${((Date.now() - t0) / 1000).toFixed(1)} s (limit ${MAX_MB} MB each)`);
if (failed) process.exit(1);
