import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { BridgeError, invalidInput, notFound } from '../../errors';
import type { BridgeConfig } from '../../config';
import { isDeviceName, isDevicePath, isWithin } from '../security/portableNames';

/** The real path of a folder, or the path as given when it does not exist (it then holds nothing to read). */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** An upload carries the bytes, so it is not bound to these folders. */
const UPLOAD_INSTEAD =
  'Upload its bytes instead, which works from anywhere: POST /library/documents/upload?filename=<name>&confirm=1 with the file as the body (MCP: study_call with bodyBase64). ';

/** Case-blind on Windows, where `c:\users\a` and `C:\Users\A` are one folder. */
const within = (root: string, file: string) => isWithin(root, file);

/**
 * A PDF on this machine that may be imported by path: an absolute path (or
 * `~/…`) to a `.pdf` file whose real location (symlinks resolved, so a link
 * cannot lead outside) lies in the library or in a configured import folder.
 * Missing → 404 FILE_NOT_FOUND; outside → 403 PATH_NOT_ALLOWED naming the
 * allowed folders; not a .pdf file → 422 NOT_A_PDF (its bytes are checked
 * again by the upload itself). There are no per-file approvals yet: outside
 * the folders is always refused.
 */
export function checkImportPath(config: Pick<BridgeConfig, 'libraryDir' | 'importFolders'>, requested: string): string {
  const real = checkAllowedFile(config, requested, 'PDFs');
  if (!/\.pdf$/i.test(real)) {
    throw invalidInput(
      `${requested} is not a PDF file (the library holds PDF documents ending in .pdf). Nothing was stored.`,
      { path: requested },
      'NOT_A_PDF',
    );
  }
  return real;
}

/**
 * A file on this machine the bridge may read by path (`what` names what is
 * read, for the messages): its real path (symlinks resolved) must lie in the
 * library or an import folder; 404 FILE_NOT_FOUND, 403 PATH_NOT_ALLOWED, 422
 * NOT_A_FILE as for PDFs.
 */
export function checkAllowedFile(
  config: Pick<BridgeConfig, 'libraryDir' | 'importFolders'>,
  requested: string,
  what: string,
): string {
  const home = /^~[\\/]/.test(requested) && (requested[1] === '/' || process.platform === 'win32');
  const expanded = home ? path.join(homedir(), requested.slice(2)) : requested;
  // A device (\\.\PhysicalDrive0, a pipe) or a level named CON is no file on a disk, on Windows or elsewhere.
  const device = isDevicePath(expanded) || expanded.split(/[\\/]/).some((p) => p && isDeviceName(p));
  if (device || !path.isAbsolute(expanded)) {
    throw invalidInput(
      device
        ? `path "${requested.slice(0, 200)}" names a device, not a file (Windows reserves \\\\.\\ paths and names such as CON, NUL, COM1).`
        : `path "${requested.slice(0, 200)}" must be absolute (or start with ~/): the bridge does not know your working folder.`,
      { field: 'path' },
      'INVALID_PATH',
    );
  }
  const allowed = [config.libraryDir, ...config.importFolders].map(realFolder);
  let real: string;
  try {
    real = realpathSync(expanded);
  } catch {
    // Said before the folder check only for paths inside the folders: elsewhere "missing" would tell what exists.
    if (allowed.some((root) => within(root, path.resolve(expanded)))) {
      throw notFound('FILE_NOT_FOUND', `No file at ${expanded}. Nothing was stored.`, { path: expanded });
    }
    real = path.resolve(expanded);
  }
  if (!allowed.some((root) => within(root, real))) {
    throw new BridgeError(
      'PATH_NOT_ALLOWED',
      403,
      `${expanded} is outside the folders ${what} may be imported from by path: ${allowed.join(', ')} (setting studyBridge.importFolders, CLI --import-folders). ${what === 'PDFs' ? UPLOAD_INSTEAD : ''}Or move or copy the file there, or ask the person to add its folder. Nothing was stored.`,
      { path: expanded, allowedFolders: allowed },
    );
  }
  const stat = statSync(real, { throwIfNoEntry: false });
  if (!stat) throw notFound('FILE_NOT_FOUND', `No file at ${expanded}. Nothing was stored.`, { path: expanded });
  if (!stat.isFile()) {
    throw invalidInput(
      what === 'PDFs'
        ? `${expanded} is not a PDF file (the library holds PDF documents ending in .pdf). Nothing was stored.`
        : `${expanded} is not a file. Nothing was stored.`,
      { path: expanded },
      what === 'PDFs' ? 'NOT_A_PDF' : 'NOT_A_FILE',
    );
  }
  return real;
}
