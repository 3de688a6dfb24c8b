import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Preloaded into a child bridge: the event loop's longest delay (ms) per 50 ms window, one line each. The main
 * thread's only: NODE_OPTIONS' --require runs in every worker thread too, and a pdf.js worker busy on a page for a
 * second is no delay of the bridge's loop.
 */
const PROBE = `const { monitorEventLoopDelay } = require('node:perf_hooks');
const { appendFileSync } = require('node:fs');
if (require('node:worker_threads').isMainThread) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  setInterval(() => {
    appendFileSync(process.env.LOOP_PROBE_FILE, Date.now() + ' ' + (h.max / 1e6).toFixed(1) + '\\n');
    h.reset();
  }, 50).unref();
}
`;

export interface LoopProbe {
  /** Environment for spawnBridge: preloads the probe into the child. */
  env: NodeJS.ProcessEnv;
  /** The longest event-loop delay (ms) the probe saw from `from` (Date.now()) until now. */
  delaySince(from: number): number;
}

/** An event-loop probe for child bridges, its script and log in `dir`. */
export function loopProbe(dir: string): LoopProbe {
  const script = join(dir, 'loopProbe.js');
  const file = join(dir, 'loop.txt');
  writeFileSync(script, PROBE);
  writeFileSync(file, '');
  return {
    env: { NODE_OPTIONS: `--require ${script}`, LOOP_PROBE_FILE: file },
    delaySince(from) {
      let max = 0;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const [at, ms] = line.split(' ').map(Number);
        if (at >= from && ms > max) max = ms;
      }
      return max;
    },
  };
}
