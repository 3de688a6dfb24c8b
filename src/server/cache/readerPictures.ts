import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Where the PDF reader keeps the picture of the page each book opens at
 * (written by the extension: editors/readerOpeningImage.ts), one
 * `<bookmd5>.page` file per book. Its place is part of the data dir's layout,
 * so the bridge removes a book's picture with the book, and at start any
 * picture of a book the library no longer holds: a deleted book leaves
 * nothing of its pages behind.
 */
export const readerPicturesDir = (dataDir: string) => path.join(dataDir, 'cache', 'reader-pages');

const PICTURE = /^([0-9a-f]{32})\.page$/;

export function removeReaderPicture(dataDir: string, bookmd5: string): void {
  if (/^[0-9a-f]{32}$/.test(bookmd5)) rmSync(path.join(readerPicturesDir(dataDir), `${bookmd5}.page`), { force: true });
}

/** Removes the pictures of books not in `held`; returns how many went. */
export function sweepReaderPictures(dataDir: string, held: (bookmd5: string) => boolean): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(readerPicturesDir(dataDir));
  } catch {
    return 0; // no pictures yet
  }
  for (const name of names) {
    const md5 = PICTURE.exec(name)?.[1];
    if (!md5 || held(md5)) continue;
    try {
      rmSync(path.join(readerPicturesDir(dataDir), name), { force: true });
      removed++;
    } catch {
      /* left for the next start */
    }
  }
  return removed;
}
