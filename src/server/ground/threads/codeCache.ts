import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import * as path from 'node:path';
import { Script } from 'node:vm';

/** What became of the cache: none yet (made after the first start), used, or refused by V8 (made anew). */
export type CodeCacheState = 'made' | 'used' | 'rejected';

export interface CachedModule {
  exports: Record<string, unknown>;
  state: CodeCacheState;
  /** Writes V8's code for the module as it is compiled now (call it once the module has done its work); no-op when the cache was used. */
  save(): void;
}

/**
 * Requires a CommonJS bundle through V8's code cache, kept in `cacheDir`. The
 * bridge's 4 MB worker bundle took 96 ms to compile and 135 ms to run its
 * top level on every window start; with the code V8 made after a first start
 * (functions compiled lazily then are in it), 25 and 85 ms
 * (docs/ARCHITECTURE.md, "Threads"). The cache is named after the bundle's
 * size and time and the V8 that made it, so a new build or runtime never
 * meets an old cache; V8 itself refuses one that does not match its source.
 * The bundle must not use import(): code compiled from a cache has no
 * dynamic-import callback on Node 20 (esbuild.mjs makes them require()).
 */
export function requireWithCodeCache(file: string, cacheDir: string): CachedModule {
  const source = readFileSync(file, 'utf8');
  const cacheFile = path.join(cacheDir, `${path.basename(file)}.${cacheKey(file)}.v8`);
  const cachedData = readCache(cacheFile);
  const script = new Script(wrap(source), { filename: file, cachedData });
  const state: CodeCacheState = !cachedData ? 'made' : script.cachedDataRejected ? 'rejected' : 'used';
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  let saved = state === 'used';
  return {
    exports: module.exports,
    state,
    save() {
      if (saved) return;
      saved = true;
      writeCache(cacheFile, `${path.basename(file)}.`, script.createCachedData());
    },
  };
}

function cacheKey(file: string): string {
  const s = statSync(file);
  return createHash('sha256')
    .update(`${s.size}:${s.mtimeMs}:${process.version}:${process.arch}:${process.versions.v8}`)
    .digest('hex')
    .slice(0, 16);
}

function readCache(cacheFile: string): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/** Written whole, private to its owner; older caches of the same bundle are removed. A failure leaves no cache, which only costs speed. */
function writeCache(cacheFile: string, stem: string, data: Buffer): void {
  const cacheDir = path.dirname(cacheFile);
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    for (const f of readdirSync(cacheDir))
      if (f.startsWith(stem) && path.join(cacheDir, f) !== cacheFile) rmSync(path.join(cacheDir, f), { force: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, cacheFile);
  } catch {
    /* no cache: the next start compiles again */
  }
}
