/**
 * The PDF reader's protocol (host: editors/pdfReaderSession.ts; page: main.ts),
 * carried by the webview channel (../channel). The page renders and reports;
 * the host owns the document, the study set and every bridge call. Once the
 * page is ready the host sends the book. Both sides import this file.
 */
import { anything, fields, isInt, isString, type RequestType } from '../channel/protocol';

/** PDF points, top-left origin (as POST /documents/{id}/locate answers). */
export interface PdfRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An anchored card of the open study set, drawn over its rectangle. */
export interface ReaderHighlight {
  noteid: string;
  page: number;
  /** The union of `rects`: where the reader scrolls to. */
  rect: PdfRect;
  /** One box per line or fragment of the excerpt; drawn and hit-tested each. */
  rects?: PdfRect[];
  /** #RRGGBB: the card's palette colour (a default when it has none). */
  color: string;
  title: string;
}

export interface OutlineEntry {
  title: string;
  page: number;
  level: number;
}

/** What the person selected in the text layer: the first page it touches, its text, and its bounding box there. */
export interface ReaderSelection {
  page: number;
  text: string;
  rect: PdfRect;
}

/** How pages are coloured: `auto` follows the VS Code theme (dark themes invert the pages). */
export type PageTone = 'auto' | 'light' | 'dark' | 'sepia';
export const PAGE_TONES: readonly PageTone[] = ['auto', 'light', 'dark', 'sepia'];

export interface BenchResult {
  longestFrameMs: number;
  frames: number;
  ms: number;
  pagesRendered: number;
}

export interface ReaderProtocol {
  hostEvents: {
    /** The book: its bytes, where to start, the bridge's outline (used when the PDF has none). */
    /** `data`: a plain ArrayBuffer (a Node Buffer would be JSON-ed through its toJSON on the way). */
    /** `scale`: pdf.js's scale value to start at ('page-width', or a number as text), remembered per book. */
    open: { data: ArrayBuffer; bookmd5: string; title: string; page: number; scale: string | null; tone: PageTone; outline: OutlineEntry[]; setTitle: string | null };
    highlights: ReaderHighlight[];
    /** Scroll to a page; with `noteid`, to that card's rectangle, which flashes. */
    goto: { page: number; noteid?: string };
    notice: { message: string; kind: 'info' | 'error' };
  };
  pageEvents: {
    /** The first page drew; `ms` since the page script started. */
    firstRender: { page: number; ms: number };
    /** Where the person is (once scrolling or zooming pauses): the host remembers it per book. */
    page: { page: number; pageCount: number; scale: string };
    /** The person chose another page tone (the host remembers it for every book). */
    tone: { tone: PageTone };
    highlightsDrawn: { count: number };
    cardClicked: { noteid: string };
    /** The toolbar's Make card button (the context menu and the key go through the host's command). */
    makeCard: void;
    error: { message: string };
  };
  hostRequests: {
    /** The live selection, else the one the context menu opened on. */
    getSelection: RequestType<void, ReaderSelection | null>;
    /** Scroll through `pages` pages frame by frame from `from`, timing each frame. */
    benchScroll: RequestType<{ from: number; pages: number }, BenchResult>;
  };
  pageRequests: object;
}

export const readerGuards = {
  firstRender: fields({ page: isInt, ms: Number.isFinite }),
  page: fields({ page: isInt, pageCount: isInt, scale: isString }),
  tone: fields({ tone: (v: unknown) => PAGE_TONES.includes(v as PageTone) }),
  highlightsDrawn: fields({ count: isInt }),
  cardClicked: fields({ noteid: isString }),
  makeCard: anything,
  error: fields({ message: isString }),
};
