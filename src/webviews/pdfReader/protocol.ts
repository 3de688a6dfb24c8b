/**
 * The PDF reader's protocol (host: editors/pdfReaderSession.ts; page: main.ts),
 * carried by the webview channel (../channel). The page renders and reports;
 * the host owns the document, the study set and every bridge call. Once the
 * page is ready the host sends the book's size with its first and last bytes;
 * pdf.js asks the host for the other byte ranges it needs (`readRange`), so a
 * long book is never copied whole into the webview. Both sides import this file.
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

/**
 * What the person selected in the text layer: the first page it touches, its text, and its bounding box there.
 * The box is the browser's (its fonts, not the PDF's glyphs): Make card sends it as a hint where the text is.
 */
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
  /** Frames that came from the clock: no animation frame within a second (a throttled or busy page). */
  clockFrames?: number;
  /** The book's ranges read over the channel while scrolling: count, KB, mean and longest round trip. */
  ranges?: { requests: number; kb: number; meanMs: number; maxMs: number };
  /** Frames longer than 100 ms. */
  slowFrames?: number;
  /** The page before it scrolled: animation frames per second at rest, its visibility and focus. */
  page?: { idleFramesPerS: number; visibility: string; focused: boolean };
}

/** Byte spans of the book sent ahead (plain ArrayBuffers: a Node Buffer would be JSON-ed through its toJSON on the way). */
export interface BookBytes {
  begin: number;
  data: ArrayBuffer;
}

/** When the page reached each step of opening a book, in ms since its script started (the suite prints them). */
export interface OpenPhases {
  /** The big script (pdf.js and main.ts) started, after boot.ts's picture painted. */
  main?: number;
  /** The document's HTML had arrived, and each of the page's files had loaded (by file name): negative, before the first script. */
  html?: number;
  loaded?: Record<string, number>;
  nav?: Record<string, number>;
  /** pdf.js's modules evaluated. */
  libs?: number;
  /** The pdf.js worker started (its script fetched through the webview's resource loader). */
  worker?: number;
  /** The host's `open` arrived. */
  open?: number;
  /** pdf.js parsed the document (its page count known). */
  document?: number;
  /** The first page's canvas drew. */
  page?: number;
  /** Ranges read over the channel before the first page, and their mean round trip (ms). */
  ranges?: number;
  rangeMeanMs?: number;
}

export interface ReaderProtocol {
  hostEvents: {
    /**
     * The book: its length, its first bytes (`head`) and last bytes (`tail`: pdf.js reads the
     * cross-reference table there first), where to start. `scale`: pdf.js's scale value to start
     * at ('page-width', or a number as text), remembered per book.
     */
    open: {
      length: number;
      head: ArrayBuffer;
      tail: BookBytes | null;
      bookmd5: string;
      title: string;
      page: number;
      scale: string | null;
      tone: PageTone;
    };
    /** The study set the reader reads for, and the bridge's outline (used when the PDF has none): after the first page. */
    context: { outline: OutlineEntry[]; setTitle: string | null };
    highlights: ReaderHighlight[];
    /** Scroll to a page; with `noteid`, to that card's rectangle, which flashes. */
    goto: { page: number; noteid?: string };
    notice: { message: string; kind: 'info' | 'error' };
    /**
     * A picture of the page the reader opens at (`scale` as in `open`), rendered by the host while pdf.js
     * loads: shown where pdf.js will draw that page until it has (openingImage.ts). Not sent when the first
     * HTML carried it already.
     */
    pageImage: { page: number; widthPt: number; heightPt: number; scale: string | null; webp: ArrayBuffer };
  };
  pageEvents: {
    /** The first page drew; `ms` since the page script started, and when each step before it ended. */
    /** `docAt`: the page's document start (epoch ms, performance.timeOrigin); `scriptMs`: its script's start after that. */
    firstRender: {
      page: number;
      ms: number;
      phases?: OpenPhases;
      imageJumpPx?: number;
      docAt?: number;
      scriptMs?: number;
    };
    /**
     * The opening picture became visible: `ms` since the script started (below 0: the first HTML showed it
     * before), `ago` ms before this message; `source`: the first HTML or a `pageImage`, which `arrived` then.
     */
    firstImage: { page: number; ms: number; ago: number; source: 'html' | 'channel'; arrived?: number };
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
  pageRequests: {
    /** Bytes [begin, end) of the book (pdf.js's range requests, at most READ_RANGE_MAX bytes each). */
    readRange: RequestType<{ begin: number; end: number }, ArrayBuffer>;
  };
}

/**
 * pdf.js asks for the book in chunks of this size (its rangeChunkSize); the host cuts `head` and `tail` on
 * the same grid. Larger than pdf.js's 64 KB: each range is a round trip through VS Code's message passing.
 */
export const READER_CHUNK_BYTES = 256 * 1024;

/** The largest range the page may ask for at once (pdf.js merges adjacent chunks into one request). */
export const READ_RANGE_MAX = 16 * 1024 * 1024;

const optionalNumber = (x: unknown) => x === undefined || Number.isFinite(x);
export const readerGuards = {
  firstRender: fields({
    page: isInt,
    ms: Number.isFinite,
    phases: (x: unknown) => x === undefined || (!!x && typeof x === 'object'),
    imageJumpPx: optionalNumber,
    docAt: optionalNumber,
    scriptMs: optionalNumber,
  }),
  firstImage: fields({
    page: isInt,
    ms: Number.isFinite,
    ago: Number.isFinite,
    source: (x: unknown) => x === 'html' || x === 'channel',
    arrived: (x: unknown) => x === undefined || Number.isFinite(x),
  }),
  page: fields({ page: isInt, pageCount: isInt, scale: isString }),
  tone: fields({ tone: (v: unknown) => PAGE_TONES.includes(v as PageTone) }),
  highlightsDrawn: fields({ count: isInt }),
  cardClicked: fields({ noteid: isString }),
  makeCard: anything,
  error: fields({ message: isString }),
  readRange: (x: unknown) => {
    const r = x as { begin?: unknown; end?: unknown } | null;
    return (
      fields({ begin: isInt, end: isInt })(x) &&
      (r!.begin as number) >= 0 &&
      (r!.end as number) > (r!.begin as number) &&
      (r!.end as number) - (r!.begin as number) <= READ_RANGE_MAX
    );
  },
};
