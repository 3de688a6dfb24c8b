#!/usr/bin/env node
// Installs code-server (a real VS Code: workbench + extension host) into
// .cache/code-server/ for the extension tests. Test-only: never a dependency of
// the project, never in the VSIX. Skips everything when the cache is complete.
//
// Steps (see ../shared/notes/vscode-tests.md): npm install code-server@4.100.3
// with its own install script blocked, then run its postinstall by hand with
// allowScripts set for the native modules VS Code needs, and point
// @vscode/ripgrep at the Debian `rg` (its own install downloads from GitHub).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const cacheDir = join(root, '.cache', 'code-server');
const pkgDir = join(cacheDir, 'node_modules', 'code-server');
const marker = join(cacheDir, `.installed-${CODE_SERVER_VERSION}`);
export const codeServerBin = join(pkgDir, 'out', 'node', 'entry.js');

const nativeAllowed = ['@parcel/watcher', '@vscode/deviceid', '@vscode/spdlog', 'kerberos', 'native-watchdog', 'node-pty'];
const blocked = [
  '@vscode/ripgrep', // downloads rg from GitHub: we link Debian's instead
  '@vscode/windows-registry', '@vscode/windows-process-tree', '@vscode/windows-mutex',
  '@vscode/windows-ca-certs', 'windows-foreground-love', '@vscode/policy-watcher',
];

function log(msg) { process.stdout.write(`[install-code-server] ${msg}\n`); }

function run(cmd, args, opts = {}) {
  execFileSync(cmd, args, { stdio: 'inherit', ...opts });
}

function addAllowScripts(file) {
  if (!existsSync(file)) return;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  pkg.allowScripts = { ...(pkg.allowScripts ?? {}) };
  for (const n of nativeAllowed) pkg.allowScripts[n] = true;
  for (const n of blocked) pkg.allowScripts[n] = false;
  writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
}

export function isInstalled() {
  return existsSync(marker) && existsSync(codeServerBin);
}

export function install() {
  if (isInstalled()) {
    log(`code-server ${CODE_SERVER_VERSION} already in ${cacheDir}`);
    return;
  }
  for (const tool of ['/usr/bin/chromium', '/usr/bin/rg']) {
    if (!existsSync(tool)) throw new Error(`${tool} missing: apt-get install chromium ripgrep libkrb5-dev pkg-config (see .ci/run)`);
  }
  const t0 = Date.now();
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(join(cacheDir, 'package.json'), JSON.stringify({
    name: 'study-bridge-code-server-cache',
    private: true,
    description: 'Test-only install of code-server for test/extension (not part of the project).',
    dependencies: { 'code-server': CODE_SERVER_VERSION },
    allowScripts: { argon2: true, 'code-server': false },
  }, null, 2) + '\n');
  log(`npm install code-server@${CODE_SERVER_VERSION} …`);
  run('npm', ['install', '--no-fund', '--no-audit', '--no-package-lock', '--loglevel=error'], { cwd: cacheDir });

  addAllowScripts(join(pkgDir, 'lib', 'vscode', 'package.json'));
  addAllowScripts(join(pkgDir, 'lib', 'vscode', 'extensions', 'package.json'));
  log('running code-server postinstall (native modules) …');
  run('sh', ['./postinstall.sh'], {
    cwd: pkgDir,
    env: {
      ...process.env,
      npm_config_yes: 'true',
      npm_config_unsafe_perm: 'true',
      npm_config_user_agent: `npm/11 node/${process.version} linux x64`,
    },
  });

  const rgBin = join(pkgDir, 'lib', 'vscode', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
  mkdirSync(dirname(rgBin), { recursive: true });
  rmSync(rgBin, { force: true });
  symlinkSync('/usr/bin/rg', rgBin);

  if (!existsSync(codeServerBin)) throw new Error(`code-server entry missing: ${codeServerBin}`);
  writeFileSync(marker, new Date().toISOString() + '\n');
  log(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    install();
  } catch (err) {
    console.error(`[install-code-server] failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  }
}
