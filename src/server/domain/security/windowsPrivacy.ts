import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { isWithin } from './portableNames';

/**
 * Windows keeps no POSIX modes (chmod 0600 leaves 0666): who may read a
 * folder is its ACL. Node cannot read ACLs, so the bridge relies on where the
 * folder is: a user profile (C:\Users\<name>) grants access to that user,
 * SYSTEM and Administrators only, and what is made inside inherits that. A
 * folder elsewhere (C:\Data, D:\, a share) usually lets every local user
 * read it (Users or Authenticated Users on the drive's root), so it is
 * warned about with the command that makes it private.
 */
export function windowsPrivacyWarnings(dataDir: string, exportFolder: string, profile: string): string[] {
  const out: string[] = [];
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  for (const [what, dir] of [
    ['data dir', dataDir],
    ['bundles folder', path.win32.join(exportFolder, 'bundles')],
  ] as const) {
    if (what === 'bundles folder' && isWithin(dataDir, dir, 'win32')) continue;
    const problem = outsideProfile(real(dir), profile);
    if (problem) out.push(`The ${what} ${dir} ${problem}`);
  }
  return out;
}

/** Why `dir` may be readable by other users; undefined inside the profile. */
export function outsideProfile(dir: string, profile: string): string | undefined {
  if (profile && isWithin(profile, dir, 'win32')) return undefined;
  return `is outside your user profile (${profile || 'unknown'}), where other local users can usually read it: Windows guards files by the folder's ACL, not by file modes. Use a folder under your profile (--data), or make it yours alone: icacls "${dir}" /inheritance:r /grant:r "%USERNAME%:(OI)(CI)F".`;
}
