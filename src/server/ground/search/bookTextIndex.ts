import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { replaceDurably } from '../store/durableFiles';
import { mkdirPrivate } from '../store/privateFiles';
import { isNoSpace } from '../../errors';
import { ByteLru } from '../cache/byteLru';
import { prefixKey, wordKey } from './bloom';
import { INDEX_FILE, indexFilePath, readBody, readFilter, unlinkQuiet, type BookFilter } from './bookIndexFile';
import { matchPages } from './bookQuery';
import {
  CorruptIndexError,
  HEADER_BYTES,
  decodeBloom,
  decodeBody,
  decodeHeader,
  encodeBook,
  type BookBody,
} from './indexFormat';

export interface BookTextIndexOptions {
  /** Where the per-book index files live (`<dataDir>/cache/text-index`). */
  dir: string;
  /** Every page's text of a ready book, to rebuild a missing or damaged index file. */
  pageTexts: (bookmd5: string) => Promise<Array<{ page: number; text: string }>>;
  /** Bytes of book index bodies kept in memory (least recently used dropped first). */
  cacheBytes?: number;
}

export interface TextHit {
  bookmd5: string;
  page: number;
  score: number;
}

export interface TextSearchResult {
  /** Matching pages, newest book first and highest page first within a book (not ranked). */
  hits: TextHit[];
  /** More pages matched than the window holds. */
  cut: boolean;
  /** Books that could not be searched (their index could not be rebuilt). */
  unsearched: string[];
}

/** ~800 books' bodies at 160 KB each: a query that must read every book stays mostly in memory. */
const DEFAULT_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * Document-text search outside the database: one immutable index file per
 * book (indexFormat.ts) and, in memory, each book's small filter (words and
 * word prefixes) plus a byte-bounded LRU of loaded book bodies. A query reads
 * books newest first, skips the ones whose filter rules a word out, and stops
 * when the window is full, so a common word touches only the newest books and
 * a rare one only the few that hold it.
 */
export class BookTextIndex {
  private readonly filters = new Map<string, BookFilter>();
  private readonly bodies: ByteLru<string, BookBody>;
  private readonly rebuilding = new Map<string, Promise<BookFilter | undefined>>();
  private readonly removed = new Set<string>();
  /** Books whose index file could not be written for space: searched from memory until the next start rebuilds the file. */
  private readonly unsaved = new Map<string, BookBody>();
  private totals = { pages: 0, tokens: 0 };

  constructor(private readonly options: BookTextIndexOptions) {
    this.bodies = new ByteLru(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
  }

  /**
   * Reads every ready book's filter (header and filter only, a few KB each),
   * drops files of books that are no longer ready, and starts rebuilding the
   * ready books whose file is missing or damaged; a search waits for those.
   */
  async open(readyBooks: string[]): Promise<void> {
    const { dir } = this.options;
    try {
      mkdirPrivate(dir);
    } catch (e) {
      if (!isNoSpace(e)) throw e;
      return; // a full disk at start: books are indexed (in memory) as a search asks for them
    }
    const ready = new Set(readyBooks);
    for (const f of readdirSync(dir)) {
      const m = INDEX_FILE.exec(f);
      if (!m || !ready.has(m[1])) unlinkQuiet(join(dir, f)); // temp files, orphans of deleted books
    }
    for (const bookmd5 of readyBooks) {
      try {
        this.setFilter(bookmd5, readFilter(this.path(bookmd5)));
      } catch {
        void this.ensure(bookmd5);
      }
    }
  }

  /** Writes the book's index file durably and makes it searchable (idempotent: same pages, same file). */
  async indexBook(bookmd5: string, pages: ReadonlyArray<{ page: number; text: string }>): Promise<void> {
    this.removed.delete(bookmd5);
    this.write(bookmd5, pages);
  }

  /** Forgets the book and deletes its file. */
  removeBook(bookmd5: string): void {
    this.removed.add(bookmd5);
    this.unsaved.delete(bookmd5);
    this.dropFilter(bookmd5);
    this.bodies.delete(bookmd5);
    unlinkQuiet(this.path(bookmd5));
  }

  /** True when the book's index is loaded (its filter is in memory). */
  has(bookmd5: string): boolean {
    return this.filters.has(bookmd5);
  }

  /** Resolves when no rebuild is running (tests). */
  async settled(): Promise<void> {
    while (this.rebuilding.size) await Promise.allSettled([...this.rebuilding.values()]);
  }

  /** What the index holds in memory, for benches. */
  memory() {
    let filterBytes = 0;
    for (const f of this.filters.values()) filterBytes += f.bloom.bits.length;
    return { books: this.filters.size, filterBytes, cachedBodies: this.bodies.size, cachedBytes: this.bodies.bytes };
  }

  /**
   * Pages of `books` (newest first) holding every word, whole words first:
   * prefixes (`word*`) are read only when whole words do not fill the window.
   * At most `window` pages from at most `bookWindow` books read (a word on a
   * few pages of every book would otherwise read the whole library); `cut`
   * says more may have matched. `bonus` words are not required: they rank
   * the pages that hold them higher.
   */
  async search(
    words: string[],
    books: string[],
    window: number,
    bookWindow = Infinity,
    bonus: readonly string[] = [],
  ): Promise<TextSearchResult> {
    // One pass computes both lists, so a search that falls back to prefixes reads each book once.
    const limit = window + 1;
    const wordKeys = words.map(wordKey);
    const prefixKeys = words.map(prefixKey);
    const bytes = words.map((w) => Buffer.from(w, 'utf8'));
    const bonusBytes = bonus.map((w) => Buffer.from(w, 'utf8'));
    const whole: TextHit[] = [];
    const prefixed: TextHit[] = [];
    const unsearched: string[] = [];
    // Books not indexed yet (a missing or damaged file) are rebuilt first, so the average page length counts them.
    for (const bookmd5 of books) if (!this.filters.has(bookmd5)) await this.ensure(bookmd5);
    const avg = this.totals.pages ? this.totals.tokens / this.totals.pages : 1;
    let read = 0;
    for (const bookmd5 of books) {
      const filter = this.filters.get(bookmd5);
      if (!filter) {
        unsearched.push(bookmd5);
        continue;
      }
      const wantWhole = wordKeys.every((k) => filter.bloom.has(k));
      const wantPrefix = prefixed.length < limit && prefixKeys.every((k) => filter.bloom.has(k));
      if (!wantWhole && !wantPrefix) continue;
      if (read++ === bookWindow) return { hits: prefixed.slice(0, window), cut: true, unsearched }; // as at the end: prefix hits include whole-word ones
      const body = await this.body(bookmd5);
      if (!body) {
        unsearched.push(bookmd5);
        continue;
      }
      if (wantPrefix)
        for (const h of matchPages(body, bytes, true, avg, bonusBytes))
          if (prefixed.length < limit) prefixed.push({ bookmd5, page: h.page, score: h.score });
      if (wantWhole)
        for (const h of matchPages(body, bytes, false, avg, bonusBytes)) {
          whole.push({ bookmd5, page: h.page, score: h.score });
          if (whole.length === limit) return { hits: whole.slice(0, window), cut: true, unsearched };
        }
    }
    return { hits: prefixed.slice(0, window), cut: prefixed.length > window, unsearched };
  }

  /**
   * Loads a ready book's body into the LRU ahead of a search, while it fits
   * beside what is there; false when it does not (or the book is not indexed:
   * no rebuild here, the search that needs it does that).
   */
  preload(bookmd5: string, maxBytes: number): boolean {
    const filter = this.filters.get(bookmd5);
    if (!filter || this.bodies.bytes + filter.header.bodyBytes > maxBytes) return false;
    if (this.bodies.get(bookmd5)) return true;
    try {
      const body = readBody(this.path(bookmd5), filter.header);
      this.bodies.set(bookmd5, body, body.bytes);
    } catch {
      // a damaged file is the search's to rebuild
    }
    return true;
  }

  /** The book's body from the LRU or its file; a damaged or missing file is rebuilt first. */
  private async body(bookmd5: string): Promise<BookBody | undefined> {
    const cached = this.bodies.get(bookmd5) ?? this.unsaved.get(bookmd5);
    if (cached) return cached;
    for (let attempt = 0; attempt < 2; attempt++) {
      const filter = this.filters.get(bookmd5) ?? (await this.ensure(bookmd5));
      if (!filter) return undefined;
      try {
        const body = readBody(this.path(bookmd5), filter.header);
        this.bodies.set(bookmd5, body, body.bytes);
        return body;
      } catch (e) {
        if (!(e instanceof CorruptIndexError) && (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        this.dropFilter(bookmd5);
      }
    }
    return undefined;
  }

  /** The book's filter, rebuilding its file from the page texts when needed; undefined when that fails. */
  private ensure(bookmd5: string): Promise<BookFilter | undefined> {
    const known = this.filters.get(bookmd5);
    if (known) return Promise.resolve(known);
    let job = this.rebuilding.get(bookmd5);
    if (!job) {
      job = (async () => {
        try {
          const pages = await this.options.pageTexts(bookmd5);
          if (this.removed.has(bookmd5)) return undefined;
          return this.write(bookmd5, pages);
        } catch {
          return undefined;
        } finally {
          this.rebuilding.delete(bookmd5);
        }
      })();
      this.rebuilding.set(bookmd5, job);
    }
    return job;
  }

  private write(bookmd5: string, pages: ReadonlyArray<{ page: number; text: string }>): BookFilter {
    const bytes = encodeBook(pages);
    const file = this.path(bookmd5);
    const header = decodeHeader(bytes);
    this.unsaved.delete(bookmd5);
    try {
      replaceDurably(file, bytes);
    } catch (e) {
      // A cache: a full disk must not fail the extraction or the search that asked for it.
      if (!isNoSpace(e)) throw e;
      const at = HEADER_BYTES + header.bloomBytes;
      this.unsaved.set(bookmd5, decodeBody(header, bytes.subarray(at, at + header.bodyBytes)));
    }
    const filter = {
      header,
      bloom: decodeBloom(header, bytes.subarray(HEADER_BYTES, HEADER_BYTES + header.bloomBytes)),
    };
    this.bodies.delete(bookmd5);
    this.setFilter(bookmd5, filter);
    return filter;
  }

  private setFilter(bookmd5: string, f: BookFilter): void {
    this.dropFilter(bookmd5);
    this.filters.set(bookmd5, f);
    this.totals.pages += f.header.pageCount;
    this.totals.tokens += f.header.totalTokens;
  }

  private dropFilter(bookmd5: string): void {
    const f = this.filters.get(bookmd5);
    if (!f) return;
    this.filters.delete(bookmd5);
    this.totals.pages -= f.header.pageCount;
    this.totals.tokens -= f.header.totalTokens;
  }

  private path(bookmd5: string): string {
    return indexFilePath(this.options.dir, bookmd5);
  }
}
