import { rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import type { DocumentCatalogue } from './documentCatalogue';
import { checkFilename, checkFolder } from './libraryPaths';
import { readInfo, recordDocument, type DocumentUploadDeps } from './documentUpload';
import { md5OfFile } from './fileMd5';
import { filesUnder, libraryFiles, TRANSIENT } from './libraryFiles';

/**
 * What a crash or a failed write leaves behind, cleared at start, under the
 * data dir lock and before this run writes anything:
 * - `.part` uploads and `.tmp` files in the library, `.tmp` files in the
 *   page cache and at the data dir's top (durable replacements cut short);
 * - a complete PDF renamed into the library whose row never committed is
 *   adopted as the book it is (same md5), so uploading the same bytes again
 *   finds it instead of storing `name (2).pdf`.
 */

const TEMP = /\.tmp$/i;

/** Removes the leftovers; returns their paths relative to the data dir. */
export function sweepLeftovers(dataDir: string, libraryDir: string): string[] {
  const removed: string[] = [];
  const sweep = (dir: string, pattern: RegExp, deep: boolean) => {
    for (const abs of filesUnder(dir, { deep, skipDot: false })) {
      if (!pattern.test(path.basename(abs))) continue;
      try {
        rmSync(abs, { force: true });
        removed.push(path.relative(dataDir, abs));
      } catch {
        /* left for the next start */
      }
    }
  };
  sweep(libraryDir, TRANSIENT, true);
  sweep(path.join(dataDir, 'cache'), TEMP, true);
  sweep(dataDir, TEMP, false);
  return removed;
}

/** Library-relative paths of the PDFs under the library that no row names (dot entries skipped). */
function untrackedPdfs(documents: DocumentCatalogue, libraryDir: string): string[] {
  const tracked = new Set(
    documents.store
      .all<{ folder: string; filename: string }>('SELECT folder, filename FROM documents')
      .map((r) => (r.folder ? `${r.folder}/${r.filename}` : r.filename)),
  );
  return libraryFiles(libraryDir).filter((r) => /\.pdf$/i.test(r) && !tracked.has(r.normalize('NFC')));
}

/** A whole PDF: the header in its first KB and an end-of-file marker in its last. */
async function looksComplete(file: string, size: number): Promise<boolean> {
  if (size < 16) return false;
  const fh = await open(file, 'r');
  try {
    const n = Math.min(1024, size);
    const head = Buffer.alloc(n);
    const tail = Buffer.alloc(n);
    await fh.read(head, 0, n, 0);
    await fh.read(tail, 0, n, size - n);
    return head.includes('%PDF-') && tail.includes('%%EOF');
  } finally {
    await fh.close();
  }
}

/**
 * Adopts untracked complete PDFs whose bytes are not in the library yet and
 * that pass the upload's checks (size and page limits, readable in a PDF
 * worker). Anything else is left where it is (the library watcher reports
 * it as untracked). Their pages are read once the caller resumes extraction.
 */
export async function adoptOrphans(
  deps: Pick<DocumentUploadDeps, 'config' | 'documents' | 'pool' | 'pageCache'>,
): Promise<Array<{ bookmd5: string; path: string }>> {
  const { config, documents } = deps;
  const adopted: Array<{ bookmd5: string; path: string }> = [];
  for (const rel of untrackedPdfs(documents, config.libraryDir)) {
    const abs = path.join(config.libraryDir, rel);
    try {
      const folder = checkFolder(path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel));
      const filename = checkFilename(path.posix.basename(rel));
      const size = statSync(abs).size;
      if (size > config.limits.uploadBytes || !(await looksComplete(abs, size))) continue;
      const bookmd5 = await md5OfFile(abs);
      if (documents.find(bookmd5)) continue; // the same book is there under another name: not ours to touch
      const info = await readInfo(deps, bookmd5, abs);
      await recordDocument(deps, { bookmd5, filename, folder, size, info });
      adopted.push({ bookmd5, path: rel });
    } catch {
      /* not adoptable: left as an untracked file */
    }
  }
  return adopted;
}
