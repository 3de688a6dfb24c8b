/**
 * Generated test fixtures (PDFs printed by Chromium, converted by LibreOffice or groff) kept by content: a file is
 * a pure function of its generator's input and the tool's version, so `npm test`'s three mocha runs (and the next
 * CI) make each once. Kept under node_modules/.cache, not TMPDIR: the Node 22 and 24 runs each have a TMPDIR of
 * their own and run at once, so a file is written under a temp name and renamed into place (the last writer wins,
 * with the same bytes).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';

export const fixtureCacheDir = resolve(__dirname, '../../node_modules/.cache/study-bridge-tests');

const versions = new Map<string, string>();

/** `cmd --version`'s first line (once per process); what a cached output of the tool is keyed by. */
export function toolVersion(cmd: string): string {
  let v = versions.get(cmd);
  if (v === undefined) {
    v = execFileSync(cmd, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 })
      .trim()
      .split('\n')[0];
    versions.set(cmd, v);
  }
  return v;
}

let fonts: string | undefined;

/** The system's fonts as fontconfig lists them (once per process): a page printed with other fonts lays out otherwise. */
export function fontsFingerprint(): string {
  fonts ??= createHash('sha256')
    .update(
      execFileSync('fc-list', [], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')
        .sort()
        .join('\n'),
    )
    .digest('hex');
  return fonts;
}

/**
 * `out`, copied from the cache when a file of the same `key` (the generator's whole input and the tool's version)
 * is there; else made by `make(out)` and then kept. Returns `out`. STUDY_BRIDGE_TEST_CACHE=0 always makes.
 */
export function cachedFixture(key: readonly string[], out: string, make: (out: string) => void): string {
  if (process.env.STUDY_BRIDGE_TEST_CACHE === '0') {
    make(out);
    return out;
  }
  const hash = createHash('sha256').update(key.join('\0')).digest('hex').slice(0, 32);
  const kept = join(fixtureCacheDir, `${hash}${extname(out)}`);
  if (existsSync(kept)) {
    copyFileSync(kept, out);
    return out;
  }
  make(out);
  mkdirSync(fixtureCacheDir, { recursive: true });
  const tmp = `${kept}.${process.pid}.${Date.now()}.tmp`;
  try {
    copyFileSync(out, tmp);
    renameSync(tmp, kept);
  } finally {
    rmSync(tmp, { force: true });
  }
  return out;
}
