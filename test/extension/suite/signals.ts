import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The suite runs inside the extension host; a few checks need the outer
 * runner (which drives Chromium): a screenshot, the status bar as rendered,
 * a second window. The suite writes `<out>/signals/<name>.req` and waits for
 * the runner's `<name>.done` (JSON).
 */
export const outDir = process.env.STUDY_BRIDGE_TEST_OUT ?? '';

export async function askRunner<T = unknown>(name: string, payload: unknown = {}, timeoutMs = 60_000): Promise<T> {
  if (!outDir) throw new Error('STUDY_BRIDGE_TEST_OUT is not set: the suite must run under test/extension/run.ts');
  const dir = join(outDir, 'signals');
  mkdirSync(dir, { recursive: true });
  const done = join(dir, `${name}.done`);
  // Written whole, then renamed: the runner never reads half a request.
  writeFileSync(join(dir, `${name}.tmp`), JSON.stringify(payload));
  renameSync(join(dir, `${name}.tmp`), join(dir, `${name}.req`));
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (existsSync(done)) {
      const answer = JSON.parse(readFileSync(done, 'utf8')) as T & { error?: string };
      if (answer && typeof answer === 'object' && 'error' in answer && answer.error)
        throw new Error(`runner: ${answer.error}`);
      return answer;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`runner did not answer "${name}" within ${timeoutMs} ms`);
}
