import type { DocumentInfo, PageData, Rect } from './pdfTypes';
import type { Highlight } from './flatExport';
import type { PageAnnotations } from './pdfAnnotations';
import type { HighlightAnnot } from './highlightWrite';
import type { PdfSource, WorkerResponse } from './workerProtocol';
import type { ImageFormat } from './pageRender';
import { defaultBudget, type ExtractionBudget } from './extractionBudget';
import { answerRendererMissing, answerTooComplex, PdfTaskError } from './pdfTaskError';
import { WorkerSlot, type Request, type Task } from './workerSlot';
import { assertRenderer } from './nativeCanvas';

export { PdfTaskError } from './pdfTaskError';

export type { PdfSource } from './workerProtocol';

export interface ExtractionHandle {
  info: Promise<DocumentInfo>;
  /** Resolves when every page was delivered (or rejects on a worker failure). */
  done: Promise<void>;
  /** Moves the chunk that holds `page` to the front of the queue. */
  prioritize(page: number): void;
  cancel(): void;
}

/**
 * At most `size` (≤ 2) worker threads running pdf.js, OCR and pdf-lib. Tasks
 * queue in order; a worker idle for `idleMs` is ended (its PDF cache and OCR
 * engine with it), after extracting pages already after `extractionIdleMs`:
 * a worker that read a book holds ~80 MB (pdf.js, the document, its garbage)
 * that a library of read books should not keep, and the next upload starts
 * one again. Each worker runs under an ExtractionBudget: V8 resource
 * limits, a cap on inflated streams and memory it checks itself, and a time
 * budget per page this side enforces; a worker over it is ended, its task
 * fails with PDF_TOO_COMPLEX and the next task gets a fresh worker.
 */
export class ExtractionPool {
  private readonly size: number;
  private readonly idleMs: number;
  private readonly extractionIdleMs: number;
  readonly budget: ExtractionBudget;
  private readonly slots: WorkerSlot[] = [];
  private readonly lowPriority: boolean;
  private queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  /** `lowPriority`: the workers take only idle CPU (work nobody waits on, e.g. the reader's opening picture); Linux only. */
  constructor(
    opts: {
      size?: number;
      idleMs?: number;
      extractionIdleMs?: number;
      budget?: Partial<ExtractionBudget>;
      lowPriority?: boolean;
    } = {},
  ) {
    this.lowPriority = opts.lowPriority ?? false;
    this.size = Math.max(1, Math.min(2, opts.size ?? 2));
    this.idleMs = opts.idleMs ?? 15_000;
    this.extractionIdleMs = Math.min(this.idleMs, opts.extractionIdleMs ?? 1000);
    this.budget = { ...defaultBudget, ...opts.budget };
  }

  /** Page count, outline and title; with `maxPages`, more pages fail (workerCode PDF_TOO_MANY_PAGES) before the outline is read. */
  async info(source: PdfSource, maxPages?: number): Promise<DocumentInfo> {
    const msg = await this.run({ kind: 'info', source, ...(maxPages === undefined ? {} : { maxPages }) });
    if (msg.kind !== 'info') throw new PdfTaskError('unexpected worker answer');
    return msg.info;
  }

  /**
   * Opens the document in a worker ahead of its page tasks: queued right
   * after `info`, it starts (or reuses) the other worker, so a whole-document
   * extraction that follows has both ready. Best effort; resolves when done.
   */
  async open(source: PdfSource): Promise<void> {
    await this.run({ kind: 'open', source });
  }

  /** Extracts the given pages (out-of-range ones are skipped), calling `onPage` as each is ready. */
  async pages(source: PdfSource, pages: number[], onPage: (p: PageData) => void, ocr = true): Promise<void> {
    await this.run({ kind: 'pages', source, pages, ocr }, (m) => m.kind === 'page' && onPage(m.page));
  }

  async render(
    source: PdfSource,
    page: number,
    scale: number,
    region?: Rect,
  ): Promise<{ png: Buffer; width: number; height: number }> {
    const r = await this.renderImage(source, page, scale, region, 'png');
    return { png: r.bytes, width: r.width, height: r.height };
  }

  /** A whole page as WebP: a picture to look at for a moment (the reader's opening page), not to keep exactly. */
  async renderPicture(
    source: PdfSource,
    page: number,
    scale: number,
  ): Promise<{ webp: Buffer; width: number; height: number }> {
    const r = await this.renderImage(source, page, scale, undefined, 'webp');
    return { webp: r.bytes, width: r.width, height: r.height };
  }

  private async renderImage(
    source: PdfSource,
    page: number,
    scale: number,
    region: Rect | undefined,
    format: ImageFormat,
  ) {
    await assertRenderer();
    const msg = await this.run({ kind: 'render', source, page, scale, region, format })
      .catch(answerRendererMissing)
      .catch(answerTooComplex);
    if (msg.kind !== 'render') throw new PdfTaskError('unexpected worker answer');
    return {
      bytes: Buffer.from(msg.bytes.buffer, msg.bytes.byteOffset, msg.bytes.byteLength),
      width: msg.width,
      height: msg.height,
    };
  }

  async exportFlat(
    source: PdfSource,
    pages: number[],
    highlights: Highlight[],
    outPath: string,
  ): Promise<{ pageCount: number; bytes: number }> {
    const msg = await this.run({ kind: 'export', source, pages, highlights, outPath }).catch(answerTooComplex);
    if (msg.kind !== 'export') throw new PdfTaskError('unexpected worker answer');
    return { pageCount: msg.pageCount, bytes: msg.bytes };
  }

  /** The annotations of the given pages, a page at a time (`onPage`); rejects on the first page not delivered. */
  async annotationPages(source: PdfSource, pages: number[], onPage: (p: PageAnnotations) => void): Promise<void> {
    await this.run({ kind: 'annotations', source, pages }, (m) => m.kind === 'annotationPage' && onPage(m));
  }

  /** A copy of the PDF with Highlight annotations added; `pages` (all of them) sizes the time budget. */
  async annotate(source: PdfSource, highlights: HighlightAnnot[], pages: number[]): Promise<Buffer> {
    const msg = await this.run({ kind: 'annotate', source, highlights, pages }).catch(answerTooComplex);
    if (msg.kind !== 'annotated') throw new PdfTaskError('unexpected worker answer');
    return Buffer.from(msg.pdf.buffer, msg.pdf.byteOffset, msg.pdf.byteLength);
  }

  /**
   * Whole-document extraction: info first (unless the caller has it), then
   * pages in chunks spread over the workers, each of which opens the PDF once.
   * `onPage` gets each page once, in no guaranteed order. `blocks: false`
   * skips layout blocks (PageData.blocks stays empty).
   */
  extractDocument(
    source: PdfSource,
    opts: {
      onPage: (p: PageData) => void;
      onInfo?: (i: DocumentInfo) => void;
      info?: DocumentInfo;
      chunkSize?: number;
      ocr?: boolean;
      blocks?: boolean;
    },
  ): ExtractionHandle {
    const group = `${source.key}#${this.nextId++}`;
    let cancelled = false;
    const info = opts.info
      ? Promise.resolve(opts.info)
      : this.run({ kind: 'info', source }, undefined, group).then((m) => {
          if (m.kind !== 'info') throw new PdfTaskError('unexpected worker answer');
          opts.onInfo?.(m.info);
          return m.info;
        });
    // While one worker reads the info (outline and all), the other opens the
    // PDF: its page count is enough to queue the pages, so that worker starts on them.
    let pageCount = info.then((i) => i.pageCount);
    if (!opts.info && this.size > 1) {
      const opened = this.run({ kind: 'open', source }, undefined, group).then((m) => {
        if (m.kind !== 'opened') throw new PdfTaskError('unexpected worker answer');
        return m.pageCount;
      });
      pageCount = Promise.any([opened, pageCount]).catch(() => info.then((i) => i.pageCount));
    }
    const done = pageCount.then(async (count) => {
      // Up to 8 pages a task, smaller for short documents so every worker gets some.
      const chunk = Math.max(1, opts.chunkSize ?? Math.min(8, Math.ceil(count / (this.size * 4))));
      const jobs: Promise<unknown>[] = [info];
      for (let start = 1; start <= count && !cancelled; start += chunk) {
        const pages: number[] = [];
        for (let p = start; p < start + chunk && p <= count; p++) pages.push(p);
        const req: Request = {
          kind: 'pages',
          source,
          pages,
          ocr: opts.ocr ?? true,
          ...(opts.blocks === false ? { blocks: false } : {}),
        };
        jobs.push(this.run(req, (m) => m.kind === 'page' && opts.onPage(m.page), group, pages));
      }
      await Promise.all(jobs);
    });
    // One failed chunk fails the document: the rest of it is not read for nothing.
    done.catch(() => this.dropGroup(group));
    return {
      info,
      done,
      prioritize: (page) => {
        const idx = this.queue.findIndex((t) => t.group === group && t.pages?.includes(page));
        if (idx > 0) this.queue.unshift(...this.queue.splice(idx, 1));
      },
      cancel: () => {
        cancelled = true;
        this.dropGroup(group);
      },
    };
  }

  private dropGroup(group: string): void {
    const dropped = this.queue.filter((t) => t.group === group);
    this.queue = this.queue.filter((t) => t.group !== group);
    for (const t of dropped) t.reject(new PdfTaskError('extraction cancelled', 'CANCELLED'));
  }

  /** Drops a document from the workers' caches (after delete). */
  async forget(key: string): Promise<void> {
    await Promise.all(this.slots.map((s) => this.post(s, { kind: 'forget', key }).catch(() => undefined)));
  }

  private post(slot: WorkerSlot, req: Request): Promise<void> {
    // forget goes straight to idle workers only; busy ones drop the doc when their cache rotates
    if (slot.busy) return Promise.resolve();
    return this.run(req).then(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue) t.reject(new PdfTaskError('pool closed', 'CLOSED'));
    this.queue = [];
    await Promise.all(this.slots.splice(0).map((s) => s.terminate()));
  }

  get pending(): number {
    return this.queue.length + this.slots.filter((s) => s.busy).length;
  }

  /**
   * Queues a task. One outside a book's background extraction (`group`) has someone waiting on it (an upload's
   * info, a render, an export): it goes after the other such tasks but before the extraction's queued chunks,
   * so an upload does not wait for the pages of the book uploaded before it.
   */
  private run(
    req: Request,
    onMessage: (m: WorkerResponse) => void = () => undefined,
    group?: string,
    pages?: number[],
  ): Promise<WorkerResponse> {
    if (this.closed) return Promise.reject(new PdfTaskError('pool closed', 'CLOSED'));
    return new Promise((resolve, reject) => {
      const task = { req, onMessage, resolve, reject, group, pages };
      const at = group === undefined ? this.queue.findIndex((t) => t.group !== undefined) : -1;
      if (at < 0) this.queue.push(task);
      else this.queue.splice(at, 0, task);
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length && !this.closed) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      slot.start(this.queue.shift()!, this.nextId++);
    }
  }

  private spawn(): WorkerSlot {
    const events = {
      free: (s: WorkerSlot) => {
        if (!this.queue.length) s.idle(s.lastKind === 'pages' ? this.extractionIdleMs : this.idleMs);
        this.pump();
      },
      gone: (s: WorkerSlot) => {
        const i = this.slots.indexOf(s);
        if (i >= 0) this.slots.splice(i, 1);
        this.pump();
      },
    };
    const slot = new WorkerSlot(this.budget, events, this.lowPriority);
    this.slots.push(slot);
    return slot;
  }

  /** Live worker threads (tests: a worker that read a book ends soon after). */
  get workers(): number {
    return this.slots.length;
  }
}
