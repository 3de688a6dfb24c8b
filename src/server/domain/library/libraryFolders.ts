import { existsSync, readdirSync, statSync } from 'node:fs';
import { notFound } from '../../errors';
import { checkFolder, insideLibrary } from './libraryPaths';

export interface LibraryFolder {
  path: string;
  name: string;
  depth: number;
  /** PDF files directly inside. */
  fileCount: number;
}

/** Real folders under the library directory, `depth` levels below `path` (breadth-first, sorted). */
export function listFolders(
  libraryDir: string,
  rawPath: string | undefined,
  depth: number,
): { path: string; folders: LibraryFolder[] } {
  const base = checkFolder(rawPath);
  const abs = insideLibrary(libraryDir, base);
  if (!existsSync(abs) || !statSync(abs).isDirectory())
    throw notFound('FOLDER_NOT_FOUND', `No library folder "${base}". GET /library/folders?path= lists the root.`);
  const folders: LibraryFolder[] = [];
  const walk = (rel: string, level: number) => {
    if (level > depth) return;
    const entries = readdirSync(insideLibrary(libraryDir, rel), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
    for (const name of entries) {
      const p = rel ? `${rel}/${name}` : name;
      const files = readdirSync(insideLibrary(libraryDir, p), { withFileTypes: true }).filter(
        (e) => e.isFile() && /\.pdf$/i.test(e.name),
      ).length;
      folders.push({ path: p, name, depth: level, fileCount: files });
      walk(p, level + 1);
    }
  };
  walk(base, 1);
  return { path: base, folders };
}
