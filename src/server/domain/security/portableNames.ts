import * as path from 'node:path';

/**
 * Names the bridge writes or reads on the user's disk follow Windows' rules on
 * every platform, so a library made on Linux or macOS opens on Windows and a
 * name can never mean a device or another folder there. One place states the
 * rules; uploads, library folders, AnkiConnect media, .apkg media and bundle
 * paths all ask it.
 */

/** Device names Windows resolves in every folder, whatever the extension (`con.pdf` is the console). */
const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;
/** Characters no Windows file name may hold (control characters, `<>:"/\|?*`). */
const FORBIDDEN = /[\u0000-\u001f<>:"/\\|?*]/;
/** NTFS: a name is at most 255 UTF-16 units. */
const MAX_UNITS = 255;

/**
 * Why `name` cannot be one file or folder name on every platform; undefined
 * when it can. The reasons are sentences for a refusal's message.
 */
export function portableNameProblem(name: string): string | undefined {
  if (!name) return 'it is empty';
  if (name === '.' || name === '..') return `"${name}" names a folder, not a file`;
  const bad = FORBIDDEN.exec(name);
  if (bad) {
    const c = bad[0];
    return c === '/' || c === '\\'
      ? 'it holds a folder separator ("/" or "\\")'
      : `it holds ${c < ' ' ? 'a control character' : `"${c}"`}, which Windows does not allow in a name`;
  }
  if (/[. ]$/.test(name)) return 'it ends in a dot or a space, which Windows drops (it would name another file)';
  if (isDeviceName(name))
    return `"${name.split('.')[0]}" is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9)`;
  if (name.length > MAX_UNITS) return `it is longer than ${MAX_UNITS} characters`;
  return undefined;
}

/** Whether Windows reads `name` as a device. It ignores what follows the first dot, and spaces before it. */
export function isDeviceName(name: string): boolean {
  return RESERVED.test(name.split('.')[0].trimEnd());
}

/** The key under which Windows and macOS (case-insensitive by default) see two names as the same file. */
export function caseFoldKey(name: string): string {
  return name.normalize('NFC').toUpperCase();
}

/**
 * Whether a path given as relative would leave its folder on some platform:
 * absolute in POSIX or Windows terms (`/x`, `\x`, `C:x`, `C:\x`, `\\server\share`,
 * `\\?\…`, `\\.\device`) or holding a `..` level, with either separator.
 */
export function escapesFolder(rel: string): boolean {
  if (path.posix.isAbsolute(rel) || path.win32.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return true;
  return rel.split(/[\\/]+/).some((p) => p === '..');
}

/**
 * A problem in any level of a relative path (levels split at `/` or `\`), as
 * `portableNameProblem` states it, naming the level; undefined when every
 * level is portable and the path stays inside its folder.
 */
export function portableRelativePathProblem(rel: string): string | undefined {
  if (escapesFolder(rel)) return 'it must be relative to its folder, without a drive, a leading separator or ".."';
  for (const level of rel.split(/[\\/]/)) {
    const p = portableNameProblem(level);
    if (p) return `"${level}": ${p}`;
  }
  return undefined;
}

/**
 * Whether `file` lies in `root` (or is it), for absolute paths of this
 * platform. Windows compares paths without regard to case, and either
 * separator: `c:\users\a\lib\x.pdf` lies in `C:\Users\A\Lib`.
 */
export function isWithin(root: string, file: string, platform: NodeJS.Platform = process.platform): boolean {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const norm = (s: string) => {
    const r = p.resolve(s);
    return platform === 'win32' ? caseFoldKey(r) : r;
  };
  const r = norm(root);
  const f = norm(file);
  return f === r || f.startsWith(r.endsWith(p.sep) ? r : r + p.sep);
}

/** Device namespace (`\\.\PhysicalDrive0`, `\\.\pipe\x`, `\\?\GLOBALROOT…`) rather than a file on a disk. */
export function isDevicePath(p: string): boolean {
  return /^[\\/]{2}[.?][\\/]/.test(p) && !/^[\\/]{2}\?[\\/]([a-zA-Z]:|UNC[\\/])/i.test(p);
}
