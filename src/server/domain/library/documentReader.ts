import { BridgeError, busy, invalidInput, notFound } from '../../errors';
import type { UiHost } from '../ui/uiHost';
import { tocCandidates, documentBodyHeight } from '../../ground/pdf/tocCandidates';
import { locateText } from '../../ground/text/locate';
import type { DocumentCatalogue, DocumentRow } from './documentCatalogue';
import type { ExtractionScheduler } from './extractionScheduler';
import type { PageReader } from './pageReader';
import { BookAnchors } from './bookAnchors';

type Box = { x: number; y: number; width: number; height: number };

export const MAX_PAGES_PER_CALL = 60;
export const TOC_SCAN_BUDGET_MS = 45_000;

/** The reading routes' logic over stored pages (GET pages, toc-candidates, locate, parts). */
export class DocumentReader {
  private readonly bodyHeights = new Map<string, number>();
  /** Page reads and toc-candidates scans running now; they share a concurrency of 2. */
  private scanning = 0;
  private readonly bookAnchors: BookAnchors;

  constructor(
    private readonly docs: DocumentCatalogue,
    private readonly extraction: Pick<ExtractionScheduler, 'waitForPages'>,
    private readonly pageReader: PageReader,
  ) {
    this.bookAnchors = new BookAnchors(pageReader);
  }

  private async withScanSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.scanning >= 2)
      throw busy('SCAN_BUSY', 'Two page or toc-candidates scans are running (the limit); retry shortly.', 2);
    this.scanning++;
    try {
      return await fn();
    } finally {
      this.scanning--;
    }
  }

  async pages(id: string, start: number, end: number | undefined, blocks: boolean) {
    const row = this.docs.get(id);
    const last = end ?? start;
    if (last < start)
      throw invalidInput(`end (${last}) is before start (${start}).`, { start, end: last }, 'INVALID_RANGE');
    if (last - start + 1 > MAX_PAGES_PER_CALL)
      throw invalidInput(
        `At most ${MAX_PAGES_PER_CALL} pages per call; asked for ${last - start + 1}.`,
        { start, end: last },
        'TOO_MANY_PAGES',
      );
    if (blocks && last - start + 1 > 2)
      throw invalidInput('blocks=1 is a probe of 1–2 sample pages.', { start, end: last }, 'BLOCK_PROBE_TOO_MANY');
    return this.withScanSlot(async () => {
      const wanted = Array.from({ length: last - start + 1 }, (_, i) => start + i);
      await this.extraction.waitForPages(row, wanted);
      const byPage = new Map<number, { text: string; ocr: number; blocks?: unknown[] }>();
      if (blocks)
        for (const p of await this.pageReader.pageBlocks(id, start, last))
          byPage.set(p.page, {
            text: p.text,
            ocr: p.ocr,
            blocks: p.blocks.map((b) => ({ index: b.index, text: b.text, label: b.label })),
          });
      else for (const p of await this.pageReader.pageTexts(id, start, last)) byPage.set(p.page, p);
      const pages = wanted.map((page) => {
        const p = byPage.get(page);
        const inRange = page <= row.page_count;
        return {
          page,
          text: p?.text ?? '',
          ...(inRange
            ? { source: p?.ocr === 1 ? 'ocr' : p?.ocr === 2 ? 'unreadable' : 'text_layer' }
            : { outOfRange: true }),
          ...(blocks ? { blocks: p?.blocks ?? [] } : {}),
        };
      });
      return {
        bookmd5: id,
        pageCount: row.page_count,
        start,
        end: last,
        pages,
        extraction: this.docs.progress(this.docs.get(id)),
      };
    });
  }

  private async bodyHeight(row: DocumentRow): Promise<number> {
    let h = this.bodyHeights.get(row.bookmd5);
    if (h === undefined) {
      // From a sample spread over the book, so every call ranks with the same scale.
      const step = Math.max(1, Math.floor(row.page_count / 40));
      const sample = [];
      for (let p = 1; p <= row.page_count; p += step)
        sample.push(...(await this.pageReader.storedPages(row.bookmd5, p, p)));
      h = documentBodyHeight(sample);
      if (row.extraction_state === 'ready') this.bodyHeights.set(row.bookmd5, h);
    }
    return h;
  }

  async tocCandidates(id: string, start: number, end: number | undefined) {
    const row = this.docs.get(id);
    const last = Math.min(end ?? row.page_count, row.page_count);
    if (end !== undefined && end < start)
      throw invalidInput(`end (${end}) is before start (${start}).`, { start, end }, 'INVALID_RANGE');
    if (start > row.page_count || last < start) {
      return {
        bookmd5: id,
        items: [],
        candidates: 0,
        pagesScanned: 0,
        truncated: false,
        pageCount: row.page_count,
        hint: `Pages ${start}–${end ?? start} are outside this ${row.page_count}-page document; do not retry.`,
      };
    }
    return this.withScanSlot(async () => {
      const t0 = Date.now();
      const chunk = 20;
      const pages = [];
      let next = start;
      while (next <= last && Date.now() - t0 < TOC_SCAN_BUDGET_MS) {
        const to = Math.min(last, next + chunk - 1);
        const range = Array.from({ length: to - next + 1 }, (_, i) => next + i);
        try {
          await this.extraction.waitForPages(this.docs.get(id), range);
        } catch (e) {
          if (e instanceof BridgeError && e.code === 'EXTRACTION_IN_PROGRESS' && pages.length) break;
          throw e;
        }
        pages.push(...(await this.pageReader.storedPages(id, next, to)));
        next = to + 1;
      }
      const truncated = next <= last;
      const found = tocCandidates(pages, { bodyHeight: await this.bodyHeight(this.docs.get(id)) });
      const items = found.map(({ score: _s, ...c }) => c);
      const scanned = next - start;
      return {
        bookmd5: id,
        items,
        candidates: items.length,
        pagesScanned: scanned,
        truncated,
        ...(truncated ? { nextStart: next } : {}),
        pageCount: row.page_count,
        hint: truncated
          ? `Scan budget reached; continue with start=${next}.`
          : items.length
            ? 'Ranked best first: larger font, numbered, near the top. Pass anchor back unchanged in POST toc.'
            : 'No heading-like lines in these pages (or OCR text without font sizes).',
      };
    });
  }

  /**
   * `near` (PDF points, top-left): a box on the page the quote was selected in (the reader's Make card). It decides
   * among the places the quote stands on that page, and the page is then the person's; the other pages the quote
   * stands on are answered all the same (alsoOn), so an agent sees that the quote is not unique.
   */
  async locate(id: string, page: number, text: string, navigate: boolean, ui: UiHost, near?: Box) {
    const row = this.docs.get(id);
    if (page > row.page_count)
      throw invalidInput(
        `Page ${page} is beyond this ${row.page_count}-page document.`,
        { page, pageCount: row.page_count },
        'PAGE_OUT_OF_RANGE',
      );
    await this.extraction.waitForPages(row, [page]);
    const stored = (await this.pageReader.storedPages(id, page, page))[0];
    const hint = near && { x: near.x, y: near.y, w: near.width, h: near.height };
    const r = locateText(stored?.ocr === 2 ? [] : (stored?.items ?? []), text, undefined, hint);
    // The other pages the quote stands on (a book extracted to the end): the caller picks, or is told it picked one of several.
    const on = await this.bookAnchors.pagesOf(row, text);
    const alsoOn = (on ?? []).filter((p) => p !== page);
    const ambiguous = alsoOn.length + (r.found ? 1 : 0) >= 2;
    // Navigation scrolls the open document only; another open document is left alone.
    let navigated: boolean | undefined;
    let reason: string | undefined;
    if (navigate) {
      const open = (await ui.context()).documents?.find((d) => d.focused)?.bookmd5;
      if (open && open !== id) [navigated, reason] = [false, 'different_document_open'];
      else {
        await ui.open({ bookmd5: id, page });
        navigated = true;
      }
    }
    return {
      bookmd5: id,
      page,
      found: r.found,
      status: r.status,
      ...(r.matchedText !== undefined ? { matchedText: r.matchedText } : {}),
      score: r.score,
      ...(r.rect
        ? {
            rect: { x: r.rect.x, y: r.rect.y, width: r.rect.w, height: r.rect.h },
            rects: (r.rects ?? [r.rect]).map((x) => ({ x: x.x, y: x.y, width: x.w, height: x.h })),
            pageSize: { width: stored?.width, height: stored?.height },
          }
        : {}),
      algorithm: r.algorithm,
      ...(ambiguous ? { ambiguous } : {}),
      ...(alsoOn.length ? { alsoOn } : {}),
      ...(navigate ? { navigated, ...(reason ? { reason } : {}) } : {}),
    };
  }

  parts(id: string, page: number) {
    const row = this.docs.get(id);
    const rows = this.docs.store.all<{
      content_id: string;
      kind: string;
      rect: string | null;
      topicid: string | null;
      has_image: number;
    }>(
      'SELECT content_id, kind, rect, topicid, image IS NOT NULL AS has_image FROM page_parts WHERE bookmd5 = ? AND page = ? ORDER BY created_at, content_id',
      [id, page],
    );
    const contentPath = (cid: string) => `/documents/${id}/pages/${page}/content/${cid}`;
    const parts = rows
      .filter((r) => r.kind === 'ink')
      .map((r) => ({
        contentId: r.content_id,
        kind: r.kind,
        rect: r.rect ? (JSON.parse(r.rect) as { x: number; y: number; width: number; height: number }) : null,
        topicid: r.topicid,
        contentPath: contentPath(r.content_id),
        mimeType: 'image/png',
      }));
    const blanks = rows
      .filter((r) => r.kind !== 'ink')
      .map((r) => ({
        contentIds: [r.content_id],
        kind: r.kind,
        segments: r.rect ? [JSON.parse(r.rect)] : [],
        topicid: r.topicid,
        contentPath: contentPath(r.content_id),
      }));
    return {
      bookmd5: id,
      page,
      pageCount: row.page_count,
      parts,
      blanks,
      mapBacked: true,
      topicFilteringApplied: false,
    };
  }

  partRow(id: string, page: number, contentId: string) {
    this.docs.get(id);
    const r = this.docs.store.get<{ rect: string | null; image: Uint8Array | null; kind: string }>(
      'SELECT rect, image, kind FROM page_parts WHERE bookmd5 = ? AND page = ? AND content_id = ?',
      [id, page, contentId],
    );
    if (!r)
      throw notFound(
        'CONTENT_NOT_FOUND',
        `No part ${contentId} on page ${page}. GET …/pages/${page}/parts lists them.`,
      );
    return r;
  }
}
