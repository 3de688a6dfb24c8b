import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';

export const projectRoot = resolve(__dirname, '../..');
export const cliPath = join(projectRoot, 'dist/cli.js');

/** The headless CLI as users run it; built on demand when a test runs before `npm run build`. */
export function ensureBuilt(): void {
  if (!existsSync(cliPath)) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: projectRoot, stdio: 'inherit' });
}

export interface ChildBridge {
  child: ChildProcess;
  baseUrl: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `study-bridge serve` in a child process and waits for its listening line. */
export function spawnBridge(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  as: { uid?: number; gid?: number } = {},
): Promise<ChildBridge> {
  ensureBuilt();
  const child = spawn(process.execPath, [cliPath, 'serve', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...as,
  });
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  return new Promise((resolveStart, reject) => {
    // A start that exits fails at once (below); this bound is only for one that hangs. Generous: two suites at once
    // (npm run test:node -- --parallel) or a busy machine make a start that takes 2 s take 20 s and more.
    const timer = setTimeout(() => reject(new Error(`bridge did not start within 90 s: ${err}`)), 90_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Study Bridge listening on (http:\/\/127\.0\.0\.1:\d+\/bridge\/v1)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, baseUrl: m[1], stdout: () => out, stderr: () => err, exited });
      }
    });
    child.stderr.on('data', (d) => (err += d));
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`bridge exited with ${code}: ${err}`), { code, stderr: err, stdout: out }));
    });
  });
}
