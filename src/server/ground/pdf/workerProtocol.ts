import type { DocumentInfo, PageData, Rect } from './pdfTypes';
import type { Highlight } from './flatExport';
import type { PageAnnotations } from './pdfAnnotations';
import type { HighlightAnnot } from './highlightWrite';
import type { ImageFormat } from './pageRender';

/** Where a worker finds the PDF: a file (preferred) or bytes. `key` names it in the worker's cache. */
export interface PdfSource {
  key: string;
  path?: string;
  bytes?: Uint8Array;
}

export type WorkerRequest =
  /** `maxPages`: more pages answer an error named PDF_TOO_MANY_PAGES before the outline is read. */
  | { id: number; kind: 'info'; source: PdfSource; maxPages?: number }
  | { id: number; kind: 'pages'; source: PdfSource; pages: number[]; ocr: boolean; blocks?: boolean }
  /** Loads pdf.js and opens the document ahead of its page tasks (a fresh worker costs ~0.5 s). */
  | { id: number; kind: 'open'; source: PdfSource }
  /** `format`: PNG (default: exact, for card images and OCR) or WebP (the reader's opening picture: 3–4× smaller). */
  | { id: number; kind: 'render'; source: PdfSource; page: number; scale: number; region?: Rect; format?: ImageFormat }
  | { id: number; kind: 'export'; source: PdfSource; pages: number[]; highlights: Highlight[]; outPath: string }
  /** The annotations of these pages (pdf.js getAnnotations), answered a page at a time (annotationPage), then done. */
  | { id: number; kind: 'annotations'; source: PdfSource; pages: number[] }
  /** A copy of the PDF with Highlight annotations added (pdf-lib); `pages`: its page count, for the time budget. */
  | { id: number; kind: 'annotate'; source: PdfSource; highlights: HighlightAnnot[]; pages: number[] }
  | { id: number; kind: 'forget'; key: string }
  /** Ends the worker from inside, at its next turn (workerSlot.ts: how Node 20 must stop a busy worker). */
  | { id: number; kind: 'quit' };

export type WorkerResponse =
  | { id: number; kind: 'info'; info: DocumentInfo }
  | { id: number; kind: 'opened'; pageCount: number }
  | { id: number; kind: 'page'; page: PageData }
  | { id: number; kind: 'render'; bytes: Uint8Array; width: number; height: number }
  | { id: number; kind: 'export'; pageCount: number; bytes: number }
  | ({ id: number; kind: 'annotationPage' } & PageAnnotations)
  | { id: number; kind: 'annotated'; pdf: Uint8Array }
  | { id: number; kind: 'done' }
  | { id: number; kind: 'error'; message: string; code?: string; errno?: string };
