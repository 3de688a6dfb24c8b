import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ExtractionPool } from '../server/pdf/extractionPool';
import { readerPicturesDir } from '../server/cache/readerPictures';

/** A page of a book as a picture: shown by the reader until pdf.js has drawn that page itself. */
export interface OpeningImage {
  page: number;
  /** The page's size in PDF points (the webview lays the picture out as pdf.js will lay out the page). */
  widthPt: number;
  heightPt: number;
  png: Buffer;
}

/** Pixels per point of the picture: 2 (144 dpi) is sharp at fit-width on most screens; a larger zoom asks for more. */
export function renderScale(scaleValue: string | undefined): number {
  const zoom = Number(scaleValue);
  return Math.min(4, Math.max(2, Number.isFinite(zoom) && zoom > 0 ? (zoom * 4) / 3 : 2));
}

/** The cache's names: a book is named by its MD5, so nothing else can reach outside the folder. */
const MD5 = /^[0-9a-f]{32}$/;
/** A larger picture (a page of photographs) is not cached: base64 in the first HTML, it would slow the page it should hasten. */
const MAX_CACHED_BYTES = 3 * 1024 * 1024;

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

  private dir(): string {
    return readerPicturesDir(this.dataDir());
  }

  /** The cached picture of `page`, if the book's cache holds that page (read at once: it goes into the first HTML). */
  cached(bookmd5: string, page: number): OpeningImage | undefined {
    if (!MD5.test(bookmd5)) return undefined;
    try {
      // One file, replaced whole: u32 length of a JSON header (page, size), the header, the PNG.
      const bytes = readFileSync(path.join(this.dir(), `${bookmd5}.page`));
      const headerEnd = 4 + bytes.readUInt32LE(0);
      const meta = JSON.parse(bytes.subarray(4, headerEnd).toString('utf8')) as Partial<OpeningImage>;
      if (meta.page !== page || !(Number(meta.widthPt) > 0) || !(Number(meta.heightPt) > 0)) return undefined;
      return { page, widthPt: Number(meta.widthPt), heightPt: Number(meta.heightPt), png: bytes.subarray(headerEnd) };
    } catch {
      return undefined;
    }
  }

  /** Renders `page` of the file (one render per book and page at a time) and caches it; undefined when it fails. */
  render(bookmd5: string, file: string, page: number, scale: number): Promise<OpeningImage | undefined> {
    const key = `${bookmd5}/${page}`;
    const existing = this.running.get(key);
    if (existing) return existing;
    // Low priority: on a busy machine the picture must not take the CPU the webview's own pdf.js needs.
    this.pool ??= new ExtractionPool({ size: 1, idleMs: 5_000, lowPriority: true });
    const pool = this.pool;
    const job = pool
      .render({ key: `reader-opening/${bookmd5}`, path: file }, page, scale)
      .then((r) => {
        const image = { page, widthPt: r.width / scale, heightPt: r.height / scale, png: r.png };
        this.store(bookmd5, image);
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

  /** A private file (the library's own page), replaced whole by a rename: a reader never sees half a picture. */
  private store(bookmd5: string, image: OpeningImage): void {
    if (!MD5.test(bookmd5) || image.png.length > MAX_CACHED_BYTES) return;
    try {
      const dir = this.dir();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const header = Buffer.from(JSON.stringify({ page: image.page, widthPt: image.widthPt, heightPt: image.heightPt }), 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(header.length, 0);
      // A .tmp left by a crash is swept at the bridge's start (startupSweep.ts).
      const tmp = path.join(dir, `${bookmd5}.page.${process.pid}.tmp`);
      writeFileSync(tmp, Buffer.concat([length, header, image.png]), { mode: 0o600 });
      renameSync(tmp, path.join(dir, `${bookmd5}.page`));
    } catch {
      /* a cache: the next opening renders again */
    }
  }

  dispose(): void {
    void this.pool?.close();
    this.pool = undefined;
  }
}
