#!/usr/bin/env node
// npm run package: production build, then the VSIX.
//  1. `node esbuild.mjs --production` (vscode external; wasm/PDF/OCR assets copied to dist/).
//  2. Modules the bundles still `require` at run time (esbuild externals such as
//     @napi-rs/canvas, tesseract.js) are found by scanning dist/*.js and copied,
//     with their dependency closure, into dist/node_modules/ — so vsce runs with
//     --no-dependencies and nothing else from node_modules ships.
//  3. A native module (*.node) makes the VSIX platform specific: --target <platform>-<arch>.
//  4. Prints the VSIX path and size.
import { execFileSync } from 'node:child_process';
import { builtinModules, createRequire } from 'node:module';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const log = (m) => process.stdout.write(`[package] ${m}\n`);
const t0 = Date.now();

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: root, stdio: 'inherit' });

// ── run-time requires left in the bundles ──
const builtins = new Set([...builtinModules, 'vscode']);
const wanted = new Set();
for (const f of readdirSync(dist)) {
  if (!f.endsWith('.js')) continue;
  const src = readFileSync(join(dist, f), 'utf8');
  for (const m of src.matchAll(/\brequire\(\s*["']([^"'./][^"']*)["']\s*\)/g)) {
    const spec = m[1];
    if (spec.startsWith('node:')) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (!builtins.has(name)) wanted.add(name);
  }
}

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

let native = false;
const hasNative = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).some((e) => e.isFile() && e.name.endsWith('.node'));
for (const [name, dir] of closure) {
  const dest = join(dist, 'node_modules', name);
  cpSync(dir, dest, { recursive: true, dereference: true, filter: (s) => !/[\\/](test|tests|docs?|\.github)$/.test(s) });
  if (hasNative(dest)) native = true;
}
log(`run-time modules: ${[...wanted].join(', ') || 'none'} (+${closure.size - wanted.size} dependencies)`);

// ── VSIX ──
const target = native ? `${process.platform}-${process.arch}` : undefined;
const out = join(root, `${pkg.name}-${pkg.version}${target ? `-${target}` : ''}.vsix`);
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const args = [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out];
if (target) args.push('--target', target);
execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });

const mb = statSync(out).size / 1024 / 1024;
log(`VSIX ${out}`);
log(`VSIX size: ${mb.toFixed(1)} MB${target ? ` (platform-specific: ${target}, native module inside)` : ''}; built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
