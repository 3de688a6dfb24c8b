#!/usr/bin/env node
// npm run package: production build, then the VSIX.
//  1. `node esbuild.mjs --production` into the stage .cache/vsix/ (vscode external; wasm/PDF/OCR assets).
//  2. Modules the bundles still `require` at run time (esbuild externals such as
//     @napi-rs/canvas, tesseract.js) are found by scanning the bundles and copied,
//     with their dependency closure, into <stage>/dist/node_modules/ — so vsce runs with
//     --no-dependencies and nothing else from node_modules ships.
//  3. A native module (*.node) makes the VSIX platform specific: --target <platform>-<arch>.
//  4. Prints the VSIX path and size.
import { execFileSync } from 'node:child_process';
import { builtinModules, createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Staged outside dist/ so a concurrent `npm run build` cannot change files while vsce zips them.
const stage = join(root, '.cache', 'vsix');
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
];

let native = false;
const hasNative = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).some((e) => e.isFile() && e.name.endsWith('.node'));
for (const [name, dir] of closure) {
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
  if (hasNative(dest)) native = true;
}
log(`run-time modules: ${[...wanted].join(', ') || 'none'} (+${closure.size - wanted.size} dependencies)`);

// ── VSIX ──
const target = native ? `${process.platform}-${process.arch}` : undefined;
const out = join(root, `${pkg.name}-${pkg.version}${target ? `-${target}` : ''}.vsix`);
for (const f of readdirSync(root))
  if (f.startsWith(`${pkg.name}-${pkg.version}`) && f.endsWith('.vsix')) rmSync(join(root, f));
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const args = [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out];
if (target) args.push('--target', target);
execFileSync(process.execPath, args, { cwd: stage, stdio: 'inherit' });

const mb = statSync(out).size / 1024 / 1024;
log(`VSIX ${out}`);
log(
  `VSIX size: ${mb.toFixed(1)} MB${target ? ` (platform-specific: ${target}, native module inside)` : ''}; built in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
