import { ExtractionPool } from '../server/ground/pdf/extractionPool';
import {
  READER_PICTURE_SCALE,
  readReaderPicture,
  writeReaderPicture,
  type ReaderPicture,
} from '../server/ground/cache/readerPictures';
import { renderReaderPicture } from '../server/domain/library/openingPictures';

/** A page of a book as a picture (the cache's format: server/ground/cache/readerPictures.ts). */
export type OpeningImage = ReaderPicture;

/** Pixels per point of the picture: 2 (144 dpi) is sharp at fit-width on most screens; a larger zoom asks for more. */
export function renderScale(scaleValue: string | undefined): number {
  const zoom = Number(scaleValue);
  return Math.min(
    4,
    Math.max(READER_PICTURE_SCALE, Number.isFinite(zoom) && zoom > 0 ? (zoom * 4) / 3 : READER_PICTURE_SCALE),
  );
}

/**
 * The opening page of each book: rendered off this thread (pdf.js in a
 * worker, as the bridge renders card images) while the reader's webview
 * loads, and cached per book (the page it was left at) under
 * <dataDir>/cache/reader-pages, so a reopened book shows it from the first
 * HTML, before any script runs. The worker ends when idle.
 */
export class ReaderOpeningImages {
  private pool: ExtractionPool | undefined;
  private readonly running = new Map<string, Promise<OpeningImage | undefined>>();

  constructor(private readonly dataDir: () => string) {}

  /** The cached picture of `page`, if the book's cache holds that page (read at once: it goes into the first HTML). */
  cached(bookmd5: string, page: number): OpeningImage | undefined {
    return readReaderPicture(this.dataDir(), bookmd5, page);
  }

  /** Renders `page` of the file (one render per book and page at a time) and caches it; undefined when it fails. */
  render(bookmd5: string, file: string, page: number, scale: number): Promise<OpeningImage | undefined> {
    const key = `${bookmd5}/${page}`;
    const existing = this.running.get(key);
    if (existing) return existing;
    // Low priority: on a busy machine the picture must not take the CPU the webview's own pdf.js needs.
    this.pool ??= new ExtractionPool({ size: 1, idleMs: 5_000, lowPriority: true });
    const pool = this.pool;
    const job = renderReaderPicture(pool, { key: `reader-opening/${bookmd5}`, path: file }, page, scale)
      .then((image) => {
        writeReaderPicture(this.dataDir(), bookmd5, image);
        return image;
      })
      .catch(() => undefined)
      .finally(() => this.running.delete(key));
    this.running.set(key, job);
    return job;
  }

  /** Caches the page a book was left at, for its next opening (nothing when it is cached already). */
  remember(bookmd5: string, file: string, page: number, scale: number): void {
    if (!this.cached(bookmd5, page)) void this.render(bookmd5, file, page, scale);
  }

  dispose(): void {
    void this.pool?.close();
    this.pool = undefined;
  }
}
