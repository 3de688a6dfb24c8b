import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Where the PDF reader keeps the picture of the page each book opens at, one
 * `<bookmd5>.page` file per book: written when a book enters the library
 * (library/openingPictures.ts, page 1) and when a reader closes (the page it
 * was left at: editors/readerOpeningImage.ts). Its place is part of the data
 * dir's layout, so the bridge removes a book's picture with the book, and at
 * start any picture of a book the library no longer holds: a deleted book
 * leaves nothing of its pages behind.
 */
export const readerPicturesDir = (dataDir: string) => path.join(dataDir, 'cache', 'reader-pages');

/** A page of a book as a picture: shown by the reader until pdf.js has drawn that page itself. */
export interface ReaderPicture {
  page: number;
  /** The page's size in PDF points (the webview lays the picture out as pdf.js will lay out the page). */
  widthPt: number;
  heightPt: number;
  /** WebP (the header says so: a file of another format, e.g. the PNGs of earlier versions, is a miss). */
  webp: Buffer;
}

/** Pixels per point of a picture rendered for the default zoom (fit width): 2, 144 dpi, is sharp on most screens. */
export const READER_PICTURE_SCALE = 2;

/** A book is named by its MD5, so nothing else can reach outside the folder. */
const MD5 = /^[0-9a-f]{32}$/;
const PICTURE = /^([0-9a-f]{32})\.page$/;
/** A larger picture (a page of photographs at a large zoom) is not cached: base64 in the first HTML, it would slow the page it should hasten. */
const MAX_CACHED_BYTES = 3 * 1024 * 1024;
/**
 * All pictures together: past this, the longest unwritten go. A first page is 15–60 KB (WebP, the corpus), so a
 * library of ~1,000 books keeps every picture; a larger one keeps those of the books added or read last.
 */
export const MAX_PICTURES_BYTES = 64 * 1024 * 1024;

/** The cached picture of `page`, if the book's file holds that page. */
export function readReaderPicture(dataDir: string, bookmd5: string, page: number): ReaderPicture | undefined {
  if (!MD5.test(bookmd5)) return undefined;
  try {
    // One file, replaced whole: u32 length of a JSON header (page, size, format), the header, the image.
    const bytes = readFileSync(path.join(readerPicturesDir(dataDir), `${bookmd5}.page`));
    const headerEnd = 4 + bytes.readUInt32LE(0);
    const meta = JSON.parse(bytes.subarray(4, headerEnd).toString('utf8')) as {
      page?: number;
      widthPt?: number;
      heightPt?: number;
      format?: string;
    };
    if (meta.format !== 'webp' || meta.page !== page || !(Number(meta.widthPt) > 0) || !(Number(meta.heightPt) > 0))
      return undefined;
    return { page, widthPt: Number(meta.widthPt), heightPt: Number(meta.heightPt), webp: bytes.subarray(headerEnd) };
  } catch {
    return undefined;
  }
}

/** A private file, replaced whole by a rename: a reader never sees half a picture. A cache: a failed write is let go. */
export function writeReaderPicture(dataDir: string, bookmd5: string, picture: ReaderPicture): boolean {
  if (!MD5.test(bookmd5) || picture.webp.length > MAX_CACHED_BYTES) return false;
  try {
    const dir = readerPicturesDir(dataDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const header = Buffer.from(
      JSON.stringify({ page: picture.page, widthPt: picture.widthPt, heightPt: picture.heightPt, format: 'webp' }),
      'utf8',
    );
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    // A .tmp left by a crash is swept at the bridge's start (startupSweep.ts).
    const tmp = path.join(dir, `${bookmd5}.page.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    writeFileSync(tmp, Buffer.concat([length, header, picture.webp]), { mode: 0o600 });
    renameSync(tmp, path.join(dir, `${bookmd5}.page`));
    trimPictures(dir, MAX_PICTURES_BYTES);
    return true;
  } catch {
    return false;
  }
}

/** Removes the pictures written longest ago until all of them fit in `maxBytes`. */
export function trimPictures(dir: string, maxBytes: number): void {
  const files = readdirSync(dir)
    .filter((name) => PICTURE.test(name))
    .map((name) => {
      const st = statSync(path.join(dir, name), { throwIfNoEntry: false });
      return { name, size: st?.size ?? 0, mtimeMs: st?.mtimeMs ?? 0 };
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = files.reduce((sum, f) => sum + f.size, 0);
  for (const f of files) {
    if (total <= maxBytes) return;
    rmSync(path.join(dir, f.name), { force: true });
    total -= f.size;
  }
}

export function removeReaderPicture(dataDir: string, bookmd5: string): void {
  if (MD5.test(bookmd5)) rmSync(path.join(readerPicturesDir(dataDir), `${bookmd5}.page`), { force: true });
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
