import { open, readdir, readFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { OutlineSegment } from '../pdf/pdfTypes';
import { ByteLru } from './byteLru';
import { fsyncDirAsync, replaceDurablyAsync } from '../store/durableFiles';
import {
  buildPagesFile,
  CacheUnreadable,
  decodeOutline,
  encodeOutline,
  ENTRY_BYTES,
  HEADER_BYTES,
  headerCount,
  packPage,
  parseTable,
  unpackPage,
  type CachedPage,
  type PackedPage,
  type PageEntry,
} from './pageFile';

interface Located extends PageEntry {
  file: string;
}
type BookIndex = Map<number, Located>;

const PAGES_FILE = 'pages.pc';
const OUTLINE_FILE = 'outline.pc';
const isPageFile = (name: string) => name === PAGES_FILE || /^seg-[0-9a-z-]+\.pc$/.test(name);
const isMissing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

let segmentSeq = 0;

/**
 * What is derived from a PDF, one folder per document under
 * `<dataDir>/cache/pages/<bookmd5>/`: `pages.pc` (compacted when extraction
 * ends), `seg-*.pc` (one per batch while it runs; same format) and
 * `outline.pc`. Files are immutable once renamed into place. In memory: the
 * page tables of recently read books and decoded pages, each bounded by bytes.
 * A file that is missing or fails its checksum is dropped (`discard`) and the
 * read throws CacheUnreadable: the caller rebuilds from the PDF.
 */
export class PageCache {
  private readonly indexes: ByteLru<string, BookIndex>;
  private readonly loading = new Map<string, Promise<BookIndex>>();
  private readonly pages: ByteLru<string, CachedPage>;
  private readonly outlines = new ByteLru<string, OutlineSegment[]>(4 * 1024 * 1024);

  constructor(
    readonly dir: string,
    opts: { pageBytes?: number; indexBytes?: number } = {},
  ) {
    this.pages = new ByteLru(opts.pageBytes ?? 48 * 1024 * 1024);
    this.indexes = new ByteLru(opts.indexBytes ?? 16 * 1024 * 1024);
  }

  bookDir(bookmd5: string): string {
    return path.join(this.dir, bookmd5);
  }

  pagesFile(bookmd5: string): string {
    return path.join(this.bookDir(bookmd5), PAGES_FILE);
  }

  /** Page → location of every cached page of a book (compacted file and segments). */
  index(bookmd5: string): Promise<BookIndex> {
    const hit = this.indexes.get(bookmd5);
    if (hit) return Promise.resolve(hit);
    let p = this.loading.get(bookmd5);
    if (!p) {
      p = this.loadIndex(bookmd5).finally(() => this.loading.delete(bookmd5));
      this.loading.set(bookmd5, p);
    }
    return p;
  }

  private async loadIndex(bookmd5: string): Promise<BookIndex> {
    const dir = this.bookDir(bookmd5);
    let names: string[] = [];
    try {
      names = (await readdir(dir)).filter(isPageFile);
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    // The compacted file first, then segments in write order: later ones win.
    names.sort((a, b) => (a === PAGES_FILE ? -1 : b === PAGES_FILE ? 1 : a < b ? -1 : 1));
    const idx: BookIndex = new Map();
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        for (const e of await readTable(file)) idx.set(e.page, { ...e, file });
      } catch (e) {
        if (e instanceof CacheUnreadable) await rm(file, { force: true });
        else if (!isMissing(e)) throw e;
      }
    }
    this.indexes.set(bookmd5, idx, 200 + idx.size * 120);
    return idx;
  }

  /** Pages start..end that are cached, in page order. Throws CacheUnreadable (after dropping the bad files). */
  async read(bookmd5: string, start: number, end: number): Promise<CachedPage[]> {
    const idx = await this.index(bookmd5);
    const out: CachedPage[] = [];
    const need = new Map<string, Located[]>();
    const wanted =
      end - start + 1 <= idx.size ? range(start, end) : [...idx.keys()].filter((p) => p >= start && p <= end);
    for (const p of wanted) {
      const hit = this.pages.get(`${bookmd5}:${p}`);
      if (hit) out.push(hit);
      else {
        const loc = idx.get(p);
        if (loc) need.set(loc.file, [...(need.get(loc.file) ?? []), loc]);
      }
    }
    for (const [file, locs] of need) {
      locs.sort((a, b) => a.offset - b.offset);
      const from = locs[0].offset;
      const span = Buffer.allocUnsafe(locs[locs.length - 1].offset + locs[locs.length - 1].length - from);
      try {
        const fh = await open(file, 'r');
        try {
          const { bytesRead } = await fh.read(span, 0, span.length, from);
          if (bytesRead !== span.length) throw new CacheUnreadable(`${file}: truncated`);
        } finally {
          await fh.close();
        }
        for (const loc of locs) {
          const page = unpackPage(loc, span.subarray(loc.offset - from, loc.offset - from + loc.length));
          this.remember(bookmd5, page);
          out.push(page);
        }
      } catch (e) {
        if (!(e instanceof CacheUnreadable) && !isMissing(e)) throw e;
        await this.discard(bookmd5);
        throw e instanceof CacheUnreadable ? e : new CacheUnreadable(`${file}: missing`);
      }
    }
    return out.sort((a, b) => a.page - b.page);
  }

  /** Size of a cached page in points, from the table alone. */
  async pageSize(bookmd5: string, page: number): Promise<{ width: number; height: number } | undefined> {
    const loc = (await this.index(bookmd5)).get(page);
    return loc && Number.isFinite(loc.width) && Number.isFinite(loc.height)
      ? { width: loc.width, height: loc.height }
      : undefined;
  }

  /** One durable segment file for a batch (one fsync for the whole batch); its pages are read from the file. */
  async writeSegment(bookmd5: string, pages: CachedPage[]): Promise<void> {
    if (!pages.length) return;
    const packed = pages.map(packPage);
    const data = buildPagesFile(packed);
    const file = path.join(
      this.bookDir(bookmd5),
      `seg-${Date.now().toString(36)}-${(++segmentSeq).toString(36).padStart(6, '0')}.pc`,
    );
    await replaceDurablyAsync(file, data);
    const idx = await this.index(bookmd5);
    for (const e of parseTable(data, data.length)) idx.set(e.page, { ...e, file });
    this.indexes.set(bookmd5, idx, 200 + idx.size * 120);
    // Not kept in memory: a library being read would fill the LRU with pages no one asked
    // for, and the long-lived small buffers left among extraction's short-lived ones keep
    // the process's malloc heap from shrinking. A read takes them from the file.
  }

  /**
   * Merges the compacted file and the segments into one `pages.pc` (payloads
   * copied as they are), removes the segments, and returns every page's text.
   * Pages whose bytes fail their checksum are left out (read later as missing).
   */
  async compact(bookmd5: string): Promise<Array<{ page: number; text: string }>> {
    const idx = await this.index(bookmd5);
    const byFile = new Map<string, Located[]>();
    for (const loc of idx.values()) byFile.set(loc.file, [...(byFile.get(loc.file) ?? []), loc]);
    const packed: PackedPage[] = [];
    const texts: Array<{ page: number; text: string }> = [];
    for (const [file, locs] of byFile) {
      let buf: Buffer;
      try {
        buf = await readFile(file);
      } catch (e) {
        if (isMissing(e)) continue;
        throw e;
      }
      for (const loc of locs) {
        const payload = buf.subarray(loc.offset, loc.offset + loc.length);
        try {
          texts.push({ page: loc.page, text: unpackPage(loc, payload).text });
          packed.push({ entry: loc, payload });
        } catch (e) {
          if (!(e instanceof CacheUnreadable)) throw e;
        }
      }
    }
    const data = buildPagesFile(packed);
    const target = this.pagesFile(bookmd5);
    await replaceDurablyAsync(target, data);
    const fresh: BookIndex = new Map(parseTable(data, data.length).map((e) => [e.page, { ...e, file: target }]));
    this.indexes.set(bookmd5, fresh, 200 + fresh.size * 120);
    for (const file of byFile.keys()) if (file !== target) await rm(file, { force: true });
    await fsyncDirAsync(this.bookDir(bookmd5));
    return texts.sort((a, b) => a.page - b.page);
  }

  /** Drops a book's page files and memory (corrupt, or about to be rebuilt); the outline stays. */
  async discard(bookmd5: string): Promise<void> {
    this.pages.deleteWhere((k) => k.startsWith(`${bookmd5}:`));
    this.indexes.delete(bookmd5);
    let names: string[] = [];
    try {
      names = (await readdir(this.bookDir(bookmd5))).filter(isPageFile);
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    for (const name of names) await rm(path.join(this.bookDir(bookmd5), name), { force: true });
  }

  /** Deletes a book's whole folder (the document was deleted). */
  async remove(bookmd5: string): Promise<void> {
    this.forgetMemory(bookmd5);
    await rm(this.bookDir(bookmd5), { recursive: true, force: true });
  }

  /** Forgets what memory holds of a book (or of every book), so the next read goes to disk. */
  forgetMemory(bookmd5?: string): void {
    const prefix = bookmd5 ? `${bookmd5}:` : '';
    this.pages.deleteWhere((k) => k.startsWith(prefix));
    if (bookmd5) {
      this.indexes.delete(bookmd5);
      this.outlines.delete(bookmd5);
    } else {
      this.indexes.deleteWhere(() => true);
      this.outlines.deleteWhere(() => true);
    }
  }

  async writeOutline(bookmd5: string, outline: OutlineSegment[]): Promise<void> {
    await replaceDurablyAsync(path.join(this.bookDir(bookmd5), OUTLINE_FILE), encodeOutline(outline));
    this.outlines.set(bookmd5, outline, 200 + JSON.stringify(outline).length * 2);
  }

  /** The original outline, or undefined when its file is missing or corrupt (then removed). */
  async readOutline(bookmd5: string): Promise<OutlineSegment[] | undefined> {
    const hit = this.outlines.get(bookmd5);
    if (hit) return hit;
    const file = path.join(this.bookDir(bookmd5), OUTLINE_FILE);
    try {
      const buf = await readFile(file);
      const outline = decodeOutline(buf);
      this.outlines.set(bookmd5, outline, 200 + buf.length * 2);
      return outline;
    } catch (e) {
      if (e instanceof CacheUnreadable || e instanceof SyntaxError) await rm(file, { force: true });
      else if (!isMissing(e)) throw e;
      return undefined;
    }
  }

  /** Bytes of decoded pages held in memory (bench). */
  get memoryBytes(): number {
    return this.pages.bytes + this.indexes.bytes + this.outlines.bytes;
  }

  private remember(bookmd5: string, p: CachedPage): void {
    this.pages.set(`${bookmd5}:${p.page}`, p, 200 + p.text.length * 2 + p.items.length + (p.blocks?.length ?? 0) * 2);
  }
}

/** Table of a page file, read with one or two preads. */
async function readTable(file: string): Promise<PageEntry[]> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const first = Buffer.allocUnsafe(Math.min(size, 64 * 1024));
    await fh.read(first, 0, first.length, 0);
    const need = HEADER_BYTES + headerCount(first, size) * ENTRY_BYTES;
    if (need <= first.length) return parseTable(first, size);
    const head = Buffer.allocUnsafe(need);
    await fh.read(head, 0, need, 0);
    return parseTable(head, size);
  } finally {
    await fh.close();
  }
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
