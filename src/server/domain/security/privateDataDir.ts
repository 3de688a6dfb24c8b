import { chmodSync, lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { DIR_MODE, FILE_MODE } from '../../ground/store/privateFiles';
import { windowsPrivacyWarnings } from './windowsPrivacy';

/** Entries looked at by one start-up walk; past it, the 0700 data dir protects what was not reached. */
export const WALK_LIMIT = 10_000;

export interface DataDirPrivacy {
  /** Why the data dir is not private, for stderr and /status. Empty when it is. */
  warnings: string[];
  /** Files and folders whose mode was tightened. */
  tightened: number;
  /** Entries looked at. */
  walked: number;
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');
const isOpen = (st: Stats) => (st.mode & 0o077) !== 0;

/**
 * Makes the data dir 0700 at every start and tightens what an older build
 * (or a 0755 dir made by someone else) left readable by other users.
 *
 * Cost: when the data dir was already 0700, nobody else could reach anything
 * inside, so only its top-level entries are checked (library.journal,
 * library.db, token and the first-level folders). Only on the start that
 * closes an open dir, when every entry may have been exposed, a breadth-first
 * walk of up to WALK_LIMIT entries makes files 0600 and folders 0700 (a
 * one-time cost: about 1 s per 10,000 entries on a busy machine). A dir that
 * stays open (not ours, no modes) is not walked: chmod would not help there.
 * Symlinks are never followed. The bundles folder of an export folder outside
 * the data dir is treated the same way; the export folder itself is the
 * user's and is left alone.
 */
export function makeDataDirPrivate(dataDir: string, exportFolder: string): DataDirPrivacy {
  const out: DataDirPrivacy = { warnings: [], tightened: 0, walked: 0 };
  // Windows has no POSIX modes; the user profile's ACLs govern there.
  if (process.platform === 'win32')
    return { ...out, warnings: windowsPrivacyWarnings(dataDir, exportFolder, homedir()) };
  const uid = process.getuid?.();
  const before = statSync(dataDir);
  const wasOpen = isOpen(before);
  let refused: string | undefined;
  if ((before.mode & 0o777) !== DIR_MODE) {
    try {
      chmodSync(dataDir, DIR_MODE);
    } catch (e) {
      refused = (e as NodeJS.ErrnoException).code;
    }
  }
  const after = statSync(dataDir);
  if (isOpen(after)) {
    out.warnings.push(
      uid !== undefined && after.uid !== uid
        ? `The data dir ${dataDir} belongs to user ${after.uid}, not to this user (${uid}), so it cannot be made private (it stays ${octal(after.mode)}). New files are created 0600, but other local users can see their names. Use a data dir of your own (--data).`
        : `The data dir ${dataDir} could not be made private (chmod 700 ${refused ? `failed with ${refused}` : `did not hold: the file system keeps no modes`}; it is ${octal(after.mode)}). New files are created 0600 where the file system allows it, but other local users may read the library. Move the data dir to a local disk.`,
    );
  }
  const bundles = join(exportFolder, 'bundles');
  const outside = relative(dataDir, bundles).startsWith('..' + sep);
  tightenTree(dataDir, wasOpen && !isOpen(after), uid, out);
  if (outside) tightenTree(bundles, undefined, uid, out);
  return out;
}

/**
 * Breadth-first, bounded: top-level entries first, so the journal, database
 * and token are always reached. `deep` undefined: `root` itself is made 0700
 * here, and walked deep only if that closed it.
 */
function tightenTree(root: string, deep: boolean | undefined, uid: number | undefined, out: DataDirPrivacy): void {
  let foreign = 0;
  try {
    const st = lstatSync(root);
    if (st.isSymbolicLink() || !st.isDirectory()) return;
    if (deep === undefined) {
      if (!tighten(root, st, DIR_MODE, uid, out)) foreign++;
      deep = isOpen(st) && !isOpen(lstatSync(root));
    }
  } catch {
    return; // no bundles folder yet
  }
  let level = [root];
  for (let depth = 0; level.length && out.walked < WALK_LIMIT && (deep || depth === 0); depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (out.walked >= WALK_LIMIT) break;
        out.walked++;
        const p = join(dir, name);
        let st: Stats;
        try {
          st = lstatSync(p);
        } catch {
          continue; // removed meanwhile
        }
        if (st.isDirectory()) {
          if (!tighten(p, st, DIR_MODE, uid, out)) foreign++;
          next.push(p);
        } else if (st.isFile() && !tighten(p, st, FILE_MODE, uid, out)) foreign++;
      }
    }
    level = next;
  }
  if (foreign)
    out.warnings.push(
      `${foreign} file(s) or folder(s) under ${root} belong to another user or refuse chmod, so they stay readable by others.`,
    );
}

/** False when the mode should change but cannot. */
function tighten(p: string, st: Stats, mode: number, uid: number | undefined, out: DataDirPrivacy): boolean {
  if ((st.mode & 0o777) === mode) return true;
  if (uid !== undefined && st.uid !== uid) return false;
  try {
    chmodSync(p, mode);
    out.tightened++;
    return true;
  } catch {
    return false;
  }
}
