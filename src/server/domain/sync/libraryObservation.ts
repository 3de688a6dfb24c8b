import { statSync } from 'node:fs';
import type { Store } from '../../ground/store/store';
import { insideLibrary } from '../library/libraryPaths';

/** A library document as its database row records it. */
export interface LibraryRow {
  bookmd5: string;
  folder: string;
  filename: string;
  size: number;
}

/** What is on disk for a row right now. */
export interface FileStat {
  exists: boolean;
  size: number | null;
  mtimeMs: number | null;
}

/** observed: file there, nothing suspicious; possible_mismatch: it changed since the bridge stored it (size, a change event or a failed re-hash); missing_file: gone. */
export type InventoryState = 'observed' | 'possible_mismatch' | 'missing_file';

export const relPath = (r: Pick<LibraryRow, 'folder' | 'filename'>) =>
  r.folder ? `${r.folder}/${r.filename}` : r.filename;

export function libraryRows(store: Pick<Store, 'all'>): LibraryRow[] {
  return store.all<LibraryRow>('SELECT bookmd5, folder, filename, size FROM documents ORDER BY bookmd5');
}

export function statFile(libraryDir: string, r: LibraryRow): FileStat {
  try {
    const s = statSync(insideLibrary(libraryDir, r.folder, r.filename));
    return s.isFile()
      ? { exists: true, size: s.size, mtimeMs: s.mtimeMs }
      : { exists: false, size: null, mtimeMs: null };
  } catch {
    return { exists: false, size: null, mtimeMs: null };
  }
}

/** Kinds after which a document is suspect until a recheck verifies it. */
const SUSPECT = new Set(['file_changed', 'file_mismatch']);

export function inventoryState(row: LibraryRow, stat: FileStat, latestKind: string | undefined): InventoryState {
  if (!stat.exists) return 'missing_file';
  if (stat.size !== row.size || (latestKind !== undefined && SUSPECT.has(latestKind))) return 'possible_mismatch';
  return 'observed';
}
