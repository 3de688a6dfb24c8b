import type { ExtractionPool, PdfSource } from '../../ground/pdf/extractionPool';
import {
  READER_PICTURE_SCALE,
  readReaderPicture,
  writeReaderPicture,
  type ReaderPicture,
} from '../../ground/cache/readerPictures';

/** A page rendered as the reader's picture of it: WebP, with its size in points for the webview's layout. */
export async function renderReaderPicture(
  pool: Pick<ExtractionPool, 'renderPicture'>,
  source: PdfSource,
  page: number,
  scale: number,
): Promise<ReaderPicture> {
  const r = await pool.renderPicture(source, page, scale);
  return { page, widthPt: r.width / scale, heightPt: r.height / scale, webp: r.webp };
}

/**
 * The first page of a book entering the library, as the picture the reader
 * shows while pdf.js loads (cache/readerPictures.ts): rendered now, ahead of
 * the pages queued for extraction (the pool puts such tasks first), so that even a book's first opening
 * shows its page before pdf.js has drawn it. Only bridges hosted by the
 * extension ask for it (BridgeOptions.openingPictures): a headless bridge has
 * no reader. Resolves whether or not it rendered (a cache: a reader renders
 * its own when this one is missing).
 */
export async function renderOpeningPicture(
  pool: Pick<ExtractionPool, 'renderPicture'>,
  dataDir: string,
  bookmd5: string,
  file: string,
): Promise<boolean> {
  if (readReaderPicture(dataDir, bookmd5, 1)) return false;
  try {
    return writeReaderPicture(
      dataDir,
      bookmd5,
      await renderReaderPicture(pool, { key: bookmd5, path: file }, 1, READER_PICTURE_SCALE),
    );
  } catch {
    return false;
  }
}
