#!/usr/bin/env node
// npm run checks: the static steps of `npm test` (typecheck, lint, format:check, build, lint:deps), two at a time.
// tsc and eslint each keep one core busy for a minute or more and need nothing from each other, so on CI's 2 cores
// the pair takes about as long as the longer one. Each step's output is printed whole when it ends (no
// interleaving), with its time; any failure fails the whole, after every step has run.
import { spawn } from 'node:child_process';

const STEPS = ['typecheck', 'lint', 'format:check', 'build', 'lint:deps'];
const AT_ONCE = 2;
const npm = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];

function run(step) {
  const t0 = Date.now();
  const child = spawn(npm[0], [...npm.slice(1), 'run', '--silent', step], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) =>
    child.on('close', (status) => {
      const secs = ((Date.now() - t0) / 1000).toFixed(0);
      process.stdout.write(`[checks] ${step}: ${status === 0 ? 'ok' : `FAILED (${status})`}, ${secs} s\n${out}`);
      resolve(status === 0);
    }),
  );
}

const t0 = Date.now();
const queue = [...STEPS];
const results = [];
await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    while (queue.length) results.push(await run(queue.shift()));
  }),
);
process.stdout.write(
  `[checks] ${STEPS.length} steps, ${AT_ONCE} at a time: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`,
);
process.exit(results.every(Boolean) ? 0 : 1);
