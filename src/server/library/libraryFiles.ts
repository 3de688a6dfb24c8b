import { readdirSync } from 'node:fs';
import * as path from 'node:path';

/** Files the bridge writes on its way to a library file, never library content. */
export const TRANSIENT = /\.(part|tmp)$/i;

/** Library-relative paths of every regular file under the library (dot entries skipped). */
export function libraryFiles(libraryDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > 16) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r, depth + 1);
      else if (e.isFile() && !TRANSIENT.test(e.name)) out.push(r);
    }
  };
  walk(libraryDir, '', 0);
  return out.sort();
}
