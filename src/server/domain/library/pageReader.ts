import { skipForSpace } from '../../ground/store/diskSpace';
import { conflict } from '../../errors';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import type { OutlineSegment, TextItem, LayoutBlock } from '../../ground/pdf/pdfTypes';
import { layoutBlocks } from '../../ground/pdf/layoutBlocks';
import type { PageCache } from '../../ground/cache/pageCache';
import { CacheUnreadable, type CachedPage } from '../../ground/cache/pageFile';
import { decodeItems } from '../../ground/cache/storedPageCodec';
import type { DocumentCatalogue, DocumentRow } from './documentCatalogue';
import type { ExtractionScheduler } from './extractionScheduler';

/** Stored page; `ocr`: 0 text layer, 1 OCR, 2 unreadable (no text layer, OCR found nothing). */
export interface StoredPage {
  page: number;
  text: string;
  items: TextItem[];
  width: number;
  height: number;
  ocr: number;
}

const storedOf = (p: CachedPage): StoredPage => ({
  page: p.page,
  text: p.text,
  items: decodeItems(p.items),
  width: p.width,
  height: p.height,
  ocr: p.ocr,
});

/**
 * Reads of extracted pages and outlines from the page cache. A ready
 * document's missing or corrupt cache is rebuilt first (through the
 * scheduler's waitForPages); for one still being extracted, what is there.
 */
export class PageReader {
  constructor(
    private readonly docs: DocumentCatalogue,
    private readonly extraction: Pick<ExtractionScheduler, 'waitForPages'>,
    private readonly cache: PageCache,
    private readonly pool: Pick<ExtractionPool, 'info'>,
  ) {}

  /** The AI outline from the row, else the PDF's own from the cache (read again from the PDF if that file is gone). */
  async outline(row: DocumentRow): Promise<{ segments: OutlineSegment[]; source: 'original' | 'ai' }> {
    if (row.toc_display === 'ai' && row.outline_ai)
      return { segments: JSON.parse(row.outline_ai) as OutlineSegment[], source: 'ai' };
    if (row.outline_original)
      return { segments: JSON.parse(row.outline_original) as OutlineSegment[], source: 'original' }; // not migrated yet
    let segments = await this.cache.readOutline(row.bookmd5);
    if (!segments) {
      this.docs.assertFile(row);
      segments = (await this.pool.info(this.docs.source(row))).outline;
      // A cache: on a full disk the outline is answered from memory and read from the PDF again next time.
      await this.cache.writeOutline(row.bookmd5, segments).catch(skipForSpace);
    }
    return { segments, source: 'original' };
  }

  /**
   * Cached pages start..end. For a ready document, missing or corrupt cache
   * files are rebuilt first (waiting like waitForPages); for one still being
   * extracted, what is there.
   */
  private async cachedPages(bookmd5: string, start: number, end: number): Promise<CachedPage[]> {
    for (let attempt = 0; ; attempt++) {
      const row = this.docs.find(bookmd5);
      try {
        if (row?.extraction_state === 'ready') {
          const last = Math.min(end, row.page_count);
          if (last >= start)
            await this.extraction.waitForPages(
              row,
              Array.from({ length: last - start + 1 }, (_, i) => start + i),
            );
        }
        return await this.cache.read(bookmd5, start, end);
      } catch (e) {
        if (!(e instanceof CacheUnreadable)) throw e;
        if (attempt >= 2)
          throw conflict(
            'EXTRACTION_IN_PROGRESS',
            'The page cache of this document is being rebuilt from the PDF. Retry shortly.',
            { retryAfterSeconds: 5 },
            true,
          );
      }
    }
  }

  async storedPages(bookmd5: string, start: number, end: number): Promise<StoredPage[]> {
    return (await this.cachedPages(bookmd5, start, end)).map(storedOf);
  }

  /** Layout blocks of stored pages: as stored by older versions, else derived from the items (as extraction did). */
  async pageBlocks(
    bookmd5: string,
    start: number,
    end: number,
  ): Promise<{ page: number; text: string; ocr: number; blocks: LayoutBlock[] }[]> {
    return (await this.cachedPages(bookmd5, start, end)).map((p) => ({
      page: p.page,
      text: p.text,
      ocr: p.ocr,
      blocks: p.blocks ? (JSON.parse(p.blocks) as LayoutBlock[]) : layoutBlocks(decodeItems(p.items), p),
    }));
  }

  async pageTexts(bookmd5: string, start: number, end: number): Promise<{ page: number; text: string; ocr: number }[]> {
    return (await this.cachedPages(bookmd5, start, end)).map((p) => ({ page: p.page, text: p.text, ocr: p.ocr }));
  }

  /** A page's size in points (from the cache table), undefined when not known. */
  async pageSize(bookmd5: string, page: number): Promise<{ width: number; height: number } | undefined> {
    const size = await this.cache.pageSize(bookmd5, page);
    if (size) return size;
    const row = this.docs.find(bookmd5);
    if (row?.extraction_state !== 'ready' || page < 1 || page > row.page_count) return undefined;
    // A ready document without the page in its cache: rebuild (or say why not).
    return (await this.storedPages(bookmd5, page, page))[0];
  }
}
