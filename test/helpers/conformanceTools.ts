import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The official MCP conformance suite needs Node ≥ 22 while the project runs
 * on 20: both come from npm into the repo's .cache (ignored by git), once,
 * and are found there afterwards. Install failures throw with what to run.
 */
const CACHE = join(__dirname, '..', '..', '.cache');
export const CONFORMANCE_VERSION = '0.1.16';
const NODE_MAJOR = '24';

function npmInstall(prefix: string, spec: string): void {
  const args = ['install', '--prefix', prefix, spec, '--no-save', '--no-fund', '--no-audit'];
  const r = spawnSync('npm', args, { encoding: 'utf8', shell: process.platform === 'win32', timeout: 300_000 });
  if (r.status !== 0)
    throw new Error(`Could not install ${spec} (npm ${args.join(' ')}): ${r.stderr || r.error?.message || r.status}`);
}

/** Node 24's binary (npm package node-<platform>-<arch>@24). */
export function node24(): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const pkg = `node-${platform}-${process.arch}`;
  const dir = join(CACHE, 'node', NODE_MAJOR);
  const bin = join(dir, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (!existsSync(bin)) npmInstall(dir, `${pkg}@${NODE_MAJOR}`);
  if (!existsSync(bin)) throw new Error(`${pkg}@${NODE_MAJOR} installed, but ${bin} is missing.`);
  return bin;
}

/** The conformance CLI's entry script. */
export function conformanceCli(): string {
  const dir = join(CACHE, 'conformance');
  const cli = join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  if (!existsSync(cli)) npmInstall(dir, `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`);
  if (!existsSync(cli)) throw new Error(`The conformance suite installed, but ${cli} is missing.`);
  return cli;
}
