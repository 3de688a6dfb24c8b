import * as path from 'node:path';
import { invalidInput } from '../../errors';
import { portableNameProblem } from '../security/portableNames';

const BAD_CHARS = /[\u0000-\u001f\\:*?"<>|]/;

/**
 * A plain file name: no `/`, no `..`, no leading `.`, no control characters;
 * ≤ 255 bytes; and a name Windows can hold (no device name such as `CON.pdf`,
 * no trailing dot or space), so the library opens on every platform.
 */
export function checkFilename(name: string): string {
  const n = name.normalize('NFC');
  if (
    !n ||
    n.includes('/') ||
    n.includes('..') ||
    n.startsWith('.') ||
    BAD_CHARS.test(n) ||
    Buffer.byteLength(n) > 255 ||
    n.trim() !== n
  ) {
    throw invalidInput(
      `filename "${name.slice(0, 80)}" must be a plain file name: no "/", "..", leading "." or control characters.`,
      { field: 'filename' },
      'INVALID_FILENAME',
    );
  }
  const windows = portableNameProblem(n);
  if (windows)
    throw invalidInput(
      `filename "${name.slice(0, 80)}" cannot be stored: ${windows}. Rename the file and upload it again; nothing was stored.`,
      { field: 'filename' },
      'INVALID_FILENAME',
    );
  return n;
}

/**
 * A library folder path relative to the library root: "" is the root, levels
 * are separated by "/", each level a plain name (no "..", no leading ".").
 */
export function checkFolder(folder: string | undefined): string {
  const f = (folder ?? '').normalize('NFC').replace(/\/+$/, '');
  if (f === '') return '';
  const parts = f.split('/');
  if (
    f.startsWith('/') ||
    parts.length > 16 ||
    parts.some((p) => !p || p === '.' || p.includes('..') || p.startsWith('.') || BAD_CHARS.test(p) || p.trim() !== p)
  ) {
    throw invalidInput(
      `folder "${f.slice(0, 120)}" must be a relative library path ("" = root, levels separated by "/", no "..").`,
      { field: 'folder' },
      'INVALID_FOLDER',
    );
  }
  const windows = parts.map((p) => [p, portableNameProblem(p)]).find(([, problem]) => problem);
  if (windows) {
    throw invalidInput(
      `folder "${f.slice(0, 120)}" cannot hold documents: level "${windows[0]}": ${windows[1]}. Nothing was stored.`,
      { field: 'folder' },
      'INVALID_FOLDER',
    );
  }
  return parts.join('/');
}

/** Absolute path of a library-relative path, checked to stay inside the library. */
export function insideLibrary(libraryDir: string, ...rel: string[]): string {
  const root = path.resolve(libraryDir);
  const abs = path.resolve(root, ...rel);
  if (abs !== root && !abs.startsWith(root + path.sep))
    throw invalidInput('path leaves the library', undefined, 'INVALID_FOLDER');
  return abs;
}
