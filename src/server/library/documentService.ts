import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { BridgeError, busy, conflict, notFound } from '../errors';
import type { Store } from '../store/store';
import type { BridgeConfig } from '../config';
import { ExtractionPool, type ExtractionHandle, type PdfSource } from '../pdf/extractionPool';
import type { DocumentInfo, OutlineSegment, PageData, TextItem, LayoutBlock } from '../pdf/pdfTypes';
import { layoutBlocks } from '../pdf/layoutBlocks';
import { decodeItems, encodeItems } from './storedPageCodec';
import { insideLibrary } from './libraryPaths';
import { PageCache } from '../cache/pageCache';
import { CacheUnreadable, type CachedPage } from '../cache/pageFile';
import { uploadDocument, type UploadInput } from './documentUpload';

/** First page number of virtual blank pages; never a PDF page. */
export const VIRTUAL_PAGE_BASE = 66000;
/** How long a read waits for pages still being extracted before answering EXTRACTION_IN_PROGRESS. */
export const PAGE_WAIT_MS = 20_000;

export interface DocumentRow {
  bookmd5: string;
  filename: string;
  folder: string;
  size: number;
  page_count: number;
  extraction_state: string;
  extracted_pages: number;
  extraction_error: string | null;
  outline_original: string | null;
  outline_ai: string | null;
  toc_display: string;
  added_at: string;
  modified_at: string;
}

/** Stored page; `ocr`: 0 text layer, 1 OCR, 2 unreadable (no text layer, OCR found nothing). */
export interface StoredPage {
  page: number;
  text: string;
  items: TextItem[];
  width: number;
  height: number;
  ocr: number;
}

/** Pages written per store transaction while a document is extracted. */
const PAGE_BATCH = 32;

interface Waiter {
  pages: Set<number>;
  resolve: () => void;
}

interface Active {
  handle: ExtractionHandle;
  buffer: PageData[];
  flushing: Promise<void>;
  timer?: NodeJS.Timeout;
  waiters: Waiter[];
  done: Promise<void>;
  /** Re-reading a ready document whose cache was missing or corrupt: the row is left as it is. */
  rebuild: boolean;
  error?: Error;
}

export interface DocumentHooks {
  /** Awaited before a document becomes ready (the text index is built here), so ready ⇒ searchable. */
  onExtracted?: (bookmd5: string, pages: Array<{ page: number; text: string }>) => Promise<void>;
  onRemoved?: (bookmd5: string) => void;
}

export const isBookmd5 = (s: string) => /^[0-9a-f]{32}$/.test(s);

/** 422 DOCUMENT_FILE_MISSING: the document's PDF is not in the library folder. `what` says what that prevents. */
export const documentFileMissing = (bookmd5: string, what: string) =>
  new BridgeError('DOCUMENT_FILE_MISSING', 422, `The PDF of document ${bookmd5} is missing from the library folder (sourceState missing_file); ${what}.`, { bookmd5, sourceState: 'missing_file' });

const storedOf = (p: CachedPage): StoredPage => ({ page: p.page, text: p.text, items: decodeItems(p.items), width: p.width, height: p.height, ocr: p.ocr });

/**
 * Library documents: upload (file under <dataDir>/library/<folder>/<filename>,
 * a row in the store), background extraction through the PDF worker pool
 * (pages written to the page cache in batches as they come, see
 * cache/pageCache.ts), delete, and the page waits the reading routes use. A
 * cache that is missing or corrupt is rebuilt from the PDF on the next read.
 */
export class DocumentService {
  readonly pool: ExtractionPool;
  readonly cache: PageCache;
  private readonly active = new Map<string, Active>();
  private closed = false;

  constructor(
    readonly store: Store,
    private readonly config: BridgeConfig,
    pool?: ExtractionPool,
    private readonly hooks: DocumentHooks = {},
  ) {
    this.pool = pool ?? new ExtractionPool({ size: 2 });
    this.cache = new PageCache(path.join(config.dataDir, 'cache', 'pages'));
  }

  /** Restarts the extraction of documents a previous run left unfinished. */
  resumeUnfinished(): void {
    const rows = this.store.all<DocumentRow>(`SELECT * FROM documents WHERE extraction_state IN ('pending', 'extracting')`);
    for (const row of rows) if (existsSync(this.filePath(row))) this.startExtraction(row.bookmd5, this.filePath(row));
  }

  filePath(row: Pick<DocumentRow, 'folder' | 'filename'>): string {
    return insideLibrary(this.config.libraryDir, row.folder, row.filename);
  }

  source(row: DocumentRow): PdfSource {
    return { key: row.bookmd5, path: this.filePath(row) };
  }

  find(bookmd5: string): DocumentRow | undefined {
    return this.store.get<DocumentRow>('SELECT * FROM documents WHERE bookmd5 = ?', [bookmd5]);
  }

  get(bookmd5: string): DocumentRow {
    const row = isBookmd5(bookmd5) ? this.find(bookmd5) : undefined;
    if (!row) throw notFound('DOCUMENT_NOT_FOUND', `No document ${bookmd5} in the library. GET /search?scope=documents finds a bookmd5.`);
    return row;
  }

  /** The AI outline from the row, else the PDF's own from the cache (read again from the PDF if that file is gone). */
  async outline(row: DocumentRow): Promise<{ segments: OutlineSegment[]; source: 'original' | 'ai' }> {
    if (row.toc_display === 'ai' && row.outline_ai) return { segments: JSON.parse(row.outline_ai), source: 'ai' };
    if (row.outline_original) return { segments: JSON.parse(row.outline_original), source: 'original' }; // not migrated yet
    let segments = await this.cache.readOutline(row.bookmd5);
    if (!segments) {
      this.assertFile(row);
      segments = (await this.pool.info(this.source(row))).outline;
      await this.cache.writeOutline(row.bookmd5, segments);
    }
    return { segments, source: 'original' };
  }

  /** 422 DOCUMENT_FILE_MISSING when the PDF is not in the library folder (nothing to read the document from). */
  assertFile(row: DocumentRow): void {
    if (existsSync(this.filePath(row))) return;
    throw documentFileMissing(row.bookmd5, 'restore the file to read it');
  }

  progress(row: DocumentRow) {
    return {
      state: row.extraction_state,
      extractedPages: row.extracted_pages,
      pageCount: row.page_count,
      ...(row.extraction_error ? { error: row.extraction_error } : {}),
    };
  }

  // ── upload (documentUpload.ts) ──

  upload(input: UploadInput) {
    return uploadDocument(this, this.config, input);
  }

  // ── extraction in the background ──

  /** Starts reading the document's pages in the background (upload, resume, rebuild). */
  startExtraction(bookmd5: string, file: string, info?: DocumentInfo, rebuild = false): Active | undefined {
    if (this.closed || this.active.has(bookmd5)) return this.active.get(bookmd5);
    const a = { buffer: [] as PageData[], flushing: Promise.resolve(), waiters: [] as Waiter[], rebuild } as Partial<Active> as Active;
    a.handle = this.pool.extractDocument(
      { key: bookmd5, path: file },
      {
        info,
        // Layout blocks are derived from the stored items when a probe asks (pageBlocks).
        blocks: false,
        onPage: (p) => {
          a.buffer.push(p);
          if (a.buffer.length >= PAGE_BATCH || a.waiters.some((w) => w.pages.has(p.page))) this.flush(bookmd5, a);
          else a.timer ??= setTimeout(() => this.flush(bookmd5, a), 150);
        },
      },
    );
    this.active.set(bookmd5, a);
    // A rebuild starts from nothing: the bad files go before any new segment is written.
    if (rebuild) a.flushing = this.cache.discard(bookmd5).catch(() => undefined);
    a.done = a.handle.done
      .then(async () => {
        this.flush(bookmd5, a);
        await a.flushing;
        await this.finishExtraction(bookmd5);
      })
      .catch(async (e: Error) => {
        a.error = e;
        if (this.closed || (e as { workerCode?: string }).workerCode === 'CANCELLED') return;
        await a.flushing;
        if (rebuild) return; // the row stays ready; the waiting read answers EXTRACTION_FAILED
        await this.store.write((tx) => tx.run(`UPDATE documents SET extraction_state = 'failed', extraction_error = ? WHERE bookmd5 = ?`, [e.message.slice(0, 500), bookmd5])).catch(() => undefined);
      })
      .finally(() => {
        this.active.delete(bookmd5);
        for (const w of a.waiters) w.resolve();
      });
    return a;
  }

  private flush(bookmd5: string, a: Active): void {
    if (a.timer) clearTimeout(a.timer);
    a.timer = undefined;
    const batch = a.buffer.splice(0);
    if (!batch.length || this.closed) return;
    a.flushing = a.flushing
      .then(() => this.ingestPages(bookmd5, batch))
      .catch(() => undefined)
      .then(() => {
        const stored = new Set(batch.map((p) => p.page));
        a.waiters = a.waiters.filter((w) => {
          for (const p of stored) w.pages.delete(p);
          if (w.pages.size === 0) w.resolve();
          return w.pages.size > 0;
        });
      });
  }

  /**
   * Stores a batch of extracted pages: one durable segment file in the page
   * cache (one fsync for the batch), then the row's progress count. What a
   * flush does; the scale bench calls it directly.
   */
  async ingestPages(bookmd5: string, pages: PageData[]): Promise<void> {
    if (!pages.length || !this.find(bookmd5)) return;
    await this.cache.writeSegment(
      bookmd5,
      pages.map((p) => ({ page: p.page, text: p.text, items: encodeItems(p.items), blocks: null, width: p.width, height: p.height, ocr: p.ocr ? 1 : p.unreadable ? 2 : 0 })),
    );
    if (this.active.get(bookmd5)?.rebuild) return;
    const n = (await this.cache.index(bookmd5)).size;
    await this.store.write((tx) => tx.run(`UPDATE documents SET extracted_pages = ? WHERE bookmd5 = ? AND extraction_state <> 'ready'`, [n, bookmd5]));
  }

  /**
   * Compacts the document's segments into its one cache file, then (unless it
   * was ready already: a rebuild) awaits the onExtracted hook and marks the
   * row ready, so a ready document is searchable.
   */
  async finishExtraction(bookmd5: string): Promise<void> {
    if (!this.find(bookmd5)) return;
    const texts = await this.cache.compact(bookmd5);
    const row = this.find(bookmd5);
    if (!row || row.extraction_state === 'ready') return;
    await this.hooks.onExtracted?.(bookmd5, texts);
    const n = texts.length;
    await this.store.write((tx) => tx.run(`UPDATE documents SET extraction_state = 'ready', extracted_pages = ?, page_count = max(page_count, ?) WHERE bookmd5 = ?`, [n, n, bookmd5]));
  }

  /**
   * Waits until pages (within the page count) are in the page cache. Pages
   * still being extracted are moved to the front of the queue; a ready
   * document whose cache is missing or corrupt is read again from its PDF
   * (422 DOCUMENT_FILE_MISSING when that is gone too). After PAGE_WAIT_MS the
   * answer is 409 EXTRACTION_IN_PROGRESS (retryable, with progress).
   */
  async waitForPages(row: DocumentRow, pages: number[]): Promise<void> {
    const wanted = pages.filter((p) => p >= 1 && p <= row.page_count);
    if (!wanted.length) return;
    const idx = await this.cache.index(row.bookmd5);
    const missing = wanted.filter((p) => !idx.has(p));
    if (!missing.length) return;
    let a = this.active.get(row.bookmd5);
    if (!a) {
      if (row.extraction_state === 'failed') throw new BridgeError('EXTRACTION_FAILED', 422, `Reading this PDF failed: ${row.extraction_error ?? 'unknown error'}.`, { extraction: this.progress(row) });
      this.assertFile(row);
      a = this.startExtraction(row.bookmd5, this.filePath(row), undefined, row.extraction_state === 'ready');
      if (!a) return; // closing
    }
    for (const p of missing) a.handle.prioritize(p);
    let timer: NodeJS.Timeout | undefined;
    const arrived = await Promise.race([
      new Promise<boolean>((resolve) => a.waiters.push({ pages: new Set(missing), resolve: () => resolve(true) })),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PAGE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (a.rebuild && a.error && (a.error as { workerCode?: string }).workerCode !== 'CANCELLED') {
      throw new BridgeError('EXTRACTION_FAILED', 422, `Reading this PDF again (its page cache was lost) failed: ${a.error.message}.`, { extraction: this.progress(row) });
    }
    if (!arrived) {
      const fresh = this.get(row.bookmd5);
      const what = a.rebuild ? 'are being read again from the PDF (the page cache was missing or damaged)' : `are still being read (${fresh.extracted_pages}/${fresh.page_count} done)`;
      throw conflict('EXTRACTION_IN_PROGRESS', `Pages ${missing[0]}… of this document ${what}. Retry shortly.`, { retryAfterSeconds: 5, extraction: this.progress(fresh) }, true);
    }
  }

  /** Resolves when the document's extraction ends (tests, bench). */
  async whenReady(bookmd5: string): Promise<void> {
    await this.active.get(bookmd5)?.done;
  }

  /**
   * Cached pages start..end. For a ready document, missing or corrupt cache
   * files are rebuilt first (waiting like waitForPages); for one still being
   * extracted, what is there.
   */
  private async cachedPages(bookmd5: string, start: number, end: number): Promise<CachedPage[]> {
    for (let attempt = 0; ; attempt++) {
      const row = this.find(bookmd5);
      try {
        if (row?.extraction_state === 'ready') {
          const last = Math.min(end, row.page_count);
          if (last >= start) await this.waitForPages(row, Array.from({ length: last - start + 1 }, (_, i) => start + i));
        }
        return await this.cache.read(bookmd5, start, end);
      } catch (e) {
        if (!(e instanceof CacheUnreadable)) throw e;
        if (attempt >= 2) throw conflict('EXTRACTION_IN_PROGRESS', 'The page cache of this document is being rebuilt from the PDF. Retry shortly.', { retryAfterSeconds: 5 }, true);
      }
    }
  }

  async storedPages(bookmd5: string, start: number, end: number): Promise<StoredPage[]> {
    return (await this.cachedPages(bookmd5, start, end)).map(storedOf);
  }

  /** Layout blocks of stored pages: as stored by older versions, else derived from the items (as extraction did). */
  async pageBlocks(bookmd5: string, start: number, end: number): Promise<{ page: number; text: string; ocr: number; blocks: LayoutBlock[] }[]> {
    return (await this.cachedPages(bookmd5, start, end)).map((p) => ({
      page: p.page,
      text: p.text,
      ocr: p.ocr,
      blocks: p.blocks ? (JSON.parse(p.blocks) as LayoutBlock[]) : layoutBlocks(decodeItems(p.items), p.height),
    }));
  }

  async pageTexts(bookmd5: string, start: number, end: number): Promise<{ page: number; text: string; ocr: number }[]> {
    return (await this.cachedPages(bookmd5, start, end)).map((p) => ({ page: p.page, text: p.text, ocr: p.ocr }));
  }

  /** A page's size in points (from the cache table), undefined when not known. */
  async pageSize(bookmd5: string, page: number): Promise<{ width: number; height: number } | undefined> {
    const size = await this.cache.pageSize(bookmd5, page);
    if (size) return size;
    const row = this.find(bookmd5);
    if (row?.extraction_state !== 'ready' || page < 1 || page > row.page_count) return undefined;
    // A ready document without the page in its cache: rebuild (or say why not).
    return (await this.storedPages(bookmd5, page, page))[0];
  }

  // ── delete ──

  async delete(bookmd5: string) {
    const row = this.get(bookmd5);
    // Hidden cards count too: a set deleted with keepHighlights keeps its highlights on this book.
    const anchored = this.store.get<{ n: number; hidden: number }>('SELECT count(*) AS n, coalesce(sum(hidden), 0) AS hidden FROM notes WHERE source_bookmd5 = ?', [bookmd5]) ?? { n: 0, hidden: 0 };
    if (anchored.n > 0) {
      const kept = anchored.hidden ? ` (${anchored.hidden} of them hidden: highlights kept by deleted study sets or review cards; delete such a set with keepHighlights:false to release them)` : '';
      throw conflict('DOCUMENT_IN_USE', `${anchored.n} card(s) are anchored to this document${kept}; remove them (or the document from their study sets) first.`, {
        anchoredCards: anchored.n,
        hiddenAnchoredCards: anchored.hidden,
      });
    }
    const a = this.active.get(bookmd5);
    a?.handle.cancel();
    await a?.flushing;
    const sets = this.store.all<{ topicid: string }>('SELECT topicid FROM topic_documents WHERE bookmd5 = ?', [bookmd5]).map((r) => r.topicid);
    await this.store.write((tx) => {
      for (const t of ['page_parts', 'topic_documents', 'documents']) tx.run(`DELETE FROM ${t} WHERE bookmd5 = ?`, [bookmd5]);
      // A set that lost its main document promotes the next one.
      for (const topicid of sets) {
        if (!tx.get('SELECT 1 FROM topic_documents WHERE topicid = ? AND is_main = 1', [topicid])) {
          tx.run('UPDATE topic_documents SET is_main = 1 WHERE rowid = (SELECT rowid FROM topic_documents WHERE topicid = ? ORDER BY position LIMIT 1)', [topicid]);
        }
      }
    });
    void this.pool.forget(bookmd5);
    this.hooks.onRemoved?.(bookmd5);
    await this.cache.remove(bookmd5).catch(() => undefined);
    let fileRemoved = true;
    let note: string | undefined;
    try {
      rmSync(this.filePath(row), { force: true });
    } catch (e) {
      fileRemoved = false;
      note = `The library record is gone but the file could not be removed: ${(e as Error).message}`;
    }
    return { bookmd5, removed: true, partial: !fileRemoved, fileRemoved, removedFromStudySets: sets.length, ...(note ? { note } : {}) };
  }

  // ── file state ──

  syncStatus(bookmd5: string, verifyHash: boolean) {
    const row = this.get(bookmd5);
    const file = this.filePath(row);
    const exists = existsSync(file);
    const hasLearningData = !!this.store.get('SELECT 1 FROM notes WHERE source_bookmd5 = ?', [bookmd5]);
    const base = {
      bookmd5,
      path: row.folder ? `${row.folder}/${row.filename}` : row.filename,
      fileExists: exists,
      expectedByCurrentSettings: true,
      hasLearningData,
      remainingUnverifiedMaterializedMappingCount: exists && !verifyHash ? 1 : 0,
    };
    if (!exists) return { ...base, state: 'missing_file', hashVerification: 'not_possible' };
    const size = statSync(file).size;
    if (!verifyHash) return { ...base, state: 'available_local_only', size, hashVerification: 'not_requested' };
    const actual = createHash('md5').update(readFileSync(file)).digest('hex');
    return actual === bookmd5
      ? { ...base, state: 'available_local_only', size, hashVerification: 'verified' }
      : { ...base, state: 'verified_mismatch', size, hashVerification: 'mismatch', actualMd5: actual };
  }

  // ── export slot (shared with other exports: one at a time) ──
  private exporting = false;

  async withExportSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.exporting) throw busy('EXPORT_BUSY', 'Another export is running; retry when it is done.', 5);
    this.exporting = true;
    try {
      return await fn();
    } finally {
      this.exporting = false;
    }
  }

  // ── scan slots: pages and toc-candidates share a concurrency of 2 ──
  private scanning = 0;

  async withScanSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.scanning >= 2) throw busy('SCAN_BUSY', 'Two page or toc-candidates scans are running (the limit); retry shortly.', 2);
    this.scanning++;
    try {
      return await fn();
    } finally {
      this.scanning--;
    }
  }

  async close(): Promise<void> {
    for (const [bookmd5, a] of this.active) {
      this.flush(bookmd5, a);
      a.handle.cancel();
    }
    this.closed = true;
    await Promise.all([...this.active.values()].map((a) => a.flushing));
    await this.pool.close();
  }
}
