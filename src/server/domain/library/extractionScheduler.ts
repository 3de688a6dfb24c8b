import { existsSync } from 'node:fs';
import { BridgeError, conflict } from '../../errors';
import type { ExtractionHandle, ExtractionPool } from '../../ground/pdf/extractionPool';
import type { DocumentInfo, PageData } from '../../ground/pdf/pdfTypes';
import type { PageCache } from '../../ground/cache/pageCache';
import { encodeItems } from '../../ground/cache/storedPageCodec';
import { failedForSpace } from '../../ground/store/diskSpace';
import type { DocumentCatalogue, DocumentRow } from './documentCatalogue';

/** How long a read waits for pages still being extracted before answering EXTRACTION_IN_PROGRESS. */
export const PAGE_WAIT_MS = 20_000;

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

export interface ExtractionHooks {
  /** Awaited before a document becomes ready (the text index is built here), so ready ⇒ searchable. */
  onExtracted?: (bookmd5: string, pages: Array<{ page: number; text: string }>) => Promise<void>;
  /** A book's extraction starts (upload, import, resume; not the rebuild of a lost cache). */
  onStarted?: (bookmd5: string, file: string) => void;
}

/**
 * Background extraction of documents through the PDF worker pool: pages are
 * written to the page cache in batches as they come (see cache/pageCache.ts),
 * reads wait for the pages they need (moved to the front of the queue), and a
 * ready document whose cache is missing or corrupt is read again from its PDF.
 */
export class ExtractionScheduler {
  private readonly active = new Map<string, Active>();
  private closed = false;

  constructor(
    private readonly docs: DocumentCatalogue,
    readonly pool: ExtractionPool,
    readonly cache: PageCache,
    private readonly hooks: ExtractionHooks = {},
  ) {}

  private get store() {
    return this.docs.store;
  }

  /** Restarts the extraction of documents a previous run left unfinished. */
  resumeUnfinished(): void {
    const rows = this.store.all<DocumentRow>(
      `SELECT * FROM documents WHERE extraction_state IN ('pending', 'extracting')`,
    );
    for (const row of rows)
      if (existsSync(this.docs.filePath(row))) this.startExtraction(row.bookmd5, this.docs.filePath(row));
  }

  /** Starts reading the document's pages in the background (upload, resume, rebuild). */
  startExtraction(bookmd5: string, file: string, info?: DocumentInfo, rebuild = false): Active | undefined {
    if (this.closed || this.active.has(bookmd5)) return this.active.get(bookmd5);
    const a = {
      buffer: [] as PageData[],
      flushing: Promise.resolve(),
      waiters: [] as Waiter[],
      rebuild,
    } as Partial<Active> as Active;
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
    if (!rebuild) this.hooks.onStarted?.(bookmd5, file);
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
        // A full page cache is not a bad PDF: the row stays 'extracting', and the next read (or start) resumes it.
        if (failedForSpace(e)) return;
        await this.store
          .write((tx) =>
            tx.run(`UPDATE documents SET extraction_state = 'failed', extraction_error = ? WHERE bookmd5 = ?`, [
              e.message.slice(0, 500),
              bookmd5,
            ]),
          )
          .catch(() => undefined);
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
      .catch((e: Error) => {
        if (failedForSpace(e)) a.error ??= e; // the waiting read answers 507 rather than a page that is not there
      })
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
   * flush does; the scale bench calls it directly (bench/scale.bench.ts).
   */
  async ingestPages(bookmd5: string, pages: PageData[]): Promise<void> {
    if (!pages.length || !this.docs.find(bookmd5)) return;
    await this.cache.writeSegment(
      bookmd5,
      pages.map((p) => ({
        page: p.page,
        text: p.text,
        items: encodeItems(p.items),
        blocks: null,
        width: p.width,
        height: p.height,
        ocr: p.ocr ? 1 : p.unreadable ? 2 : 0,
      })),
    );
    if (this.active.get(bookmd5)?.rebuild) return;
    const n = (await this.cache.index(bookmd5)).size;
    await this.store.write((tx) =>
      tx.run(`UPDATE documents SET extracted_pages = ? WHERE bookmd5 = ? AND extraction_state <> 'ready'`, [
        n,
        bookmd5,
      ]),
    );
  }

  /**
   * Compacts the document's segments into its one cache file, then (unless it
   * was ready already: a rebuild) awaits the onExtracted hook and marks the
   * row ready, so a ready document is searchable.
   */
  async finishExtraction(bookmd5: string): Promise<void> {
    if (!this.docs.find(bookmd5)) return;
    const texts = await this.cache.compact(bookmd5);
    const row = this.docs.find(bookmd5);
    if (!row || row.extraction_state === 'ready') return;
    await this.hooks.onExtracted?.(bookmd5, texts);
    const n = texts.length;
    await this.store.write((tx) =>
      tx.run(
        `UPDATE documents SET extraction_state = 'ready', extracted_pages = ?, page_count = max(page_count, ?) WHERE bookmd5 = ?`,
        [n, n, bookmd5],
      ),
    );
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
      if (row.extraction_state === 'failed')
        throw new BridgeError(
          'EXTRACTION_FAILED',
          422,
          `Reading this PDF failed: ${row.extraction_error ?? 'unknown error'}.`,
          { extraction: this.docs.progress(row) },
        );
      this.docs.assertFile(row);
      a = this.startExtraction(row.bookmd5, this.docs.filePath(row), undefined, row.extraction_state === 'ready');
      if (!a) return; // closing
    }
    for (const p of missing) a.handle.prioritize(p);
    let timer: NodeJS.Timeout | undefined;
    const arrived = await Promise.race([
      new Promise<boolean>((resolve) => a.waiters.push({ pages: new Set(missing), resolve: () => resolve(true) })),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PAGE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (a.error && failedForSpace(a.error)) throw a.error;
    if (a.error && (a.error as { workerCode?: string }).workerCode !== 'CANCELLED') {
      if (a.rebuild)
        throw new BridgeError(
          'EXTRACTION_FAILED',
          422,
          `Reading this PDF again (its page cache was lost) failed: ${a.error.message}.`,
          { extraction: this.docs.progress(row) },
        );
      // A first extraction that failed before these pages came; a read that came while it ran (or between
      // the row's 'failed' being written and the waiters hearing it) answers as a later read would.
      const held = await this.cache.index(row.bookmd5);
      if (missing.some((p) => !held.has(p))) {
        throw new BridgeError('EXTRACTION_FAILED', 422, `Reading this PDF failed: ${a.error.message}.`, {
          extraction: this.docs.progress(this.docs.get(row.bookmd5)),
        });
      }
    }
    if (!arrived) {
      const fresh = this.docs.get(row.bookmd5);
      const what = a.rebuild
        ? 'are being read again from the PDF (the page cache was missing or damaged)'
        : `are still being read (${fresh.extracted_pages}/${fresh.page_count} done)`;
      throw conflict(
        'EXTRACTION_IN_PROGRESS',
        `Pages ${missing[0]}… of this document ${what}. Retry shortly.`,
        { retryAfterSeconds: 5, extraction: this.docs.progress(fresh) },
        true,
      );
    }
  }

  /** Resolves when the document's extraction ends (tests, bench). */
  async whenReady(bookmd5: string): Promise<void> {
    await this.active.get(bookmd5)?.done;
  }

  /** Cancels the document's extraction (if any) and waits for the pages already on their way to the cache (delete). */
  async stop(bookmd5: string): Promise<void> {
    const a = this.active.get(bookmd5);
    a?.handle.cancel();
    await a?.flushing;
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
