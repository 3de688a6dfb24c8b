import { readdirSync } from 'node:fs';
import * as path from 'node:path';

/** Files the bridge writes on its way to a library file, never library content. */
export const TRANSIENT = /\.(part|tmp)$/i;

/** How deep a walk goes: a folder loop through links or a hostile tree cannot make it run forever. */
const MAX_DEPTH = 16;

/**
 * Absolute paths of the regular files in `dir` (and below it when `deep`).
 * Unreadable folders are skipped; `skipDot` leaves out dot files and folders.
 */
export function* filesUnder(dir: string, opts: { deep: boolean; skipDot: boolean }, depth = 0): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (opts.skipDot && e.name.startsWith('.')) continue;
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (opts.deep && depth < MAX_DEPTH) yield* filesUnder(abs, opts, depth + 1);
    } else if (e.isFile()) yield abs;
  }
}

/** Library-relative paths of every regular file under the library (dot entries skipped). */
export function libraryFiles(libraryDir: string): string[] {
  const out: string[] = [];
  for (const abs of filesUnder(libraryDir, { deep: true, skipDot: true })) {
    if (!TRANSIENT.test(path.basename(abs))) out.push(path.relative(libraryDir, abs).split(path.sep).join('/'));
  }
  return out.sort();
}
