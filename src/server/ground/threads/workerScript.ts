import { existsSync } from 'node:fs';
import * as path from 'node:path';

/**
 * How a worker thread starts: from the bundle, `<bundled>` beside it (dist/);
 * under tsx (tests, benchmarks), tsx's loader hooks do not reach worker
 * threads on Node 20, so a one-line bootstrap registers tsx's CommonJS hook
 * in the worker and requires the TypeScript entry `<source>` (a path in src/).
 */
export function workerScript(source: string, bundled: string): { script: string; eval: boolean } {
  if (__filename.endsWith('.ts') && existsSync(source)) {
    const api = require.resolve('tsx/cjs/api');
    return { script: `require(${JSON.stringify(api)}).register();\nrequire(${JSON.stringify(source)});`, eval: true };
  }
  return { script: path.join(__dirname, bundled), eval: false };
}
