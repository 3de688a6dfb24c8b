/**
 * Messages between the PDF reader (extension host) and its webview
 * (src/webviews/pdfReader). The webview renders and reports; the host owns the
 * document, the study set and every bridge call. The webview says `ready`
 * first; the host then sends the book. Requests carry a requestId and get
 * exactly one reply with the same id. Types only: both sides import this file.
 */

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
  rect: PdfRect;
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

export type HostToWebview =
  /** The book: its bytes, where to start, the bridge's outline (used when the PDF has none). */
  /** `data`: a plain ArrayBuffer (a Node Buffer would be JSON-ed through its toJSON on the way). */
  | { type: 'open'; data: ArrayBuffer; bookmd5: string; title: string; page: number; outline: OutlineEntry[]; setTitle: string | null }
  | { type: 'highlights'; items: ReaderHighlight[] }
  /** Scroll to a page; with `noteid`, to that card's rectangle, which flashes. */
  | { type: 'goto'; page: number; noteid?: string }
  | { type: 'notice'; message: string; kind: 'info' | 'error' }
  | { type: 'getSelection'; requestId: number }
  /** Scroll through `pages` pages frame by frame from `from`, timing each frame. */
  | { type: 'benchScroll'; requestId: number; from: number; pages: number };

export type WebviewToHost =
  | { type: 'ready' }
  /** The first page drew; `ms` since the webview script started. */
  | { type: 'firstRender'; page: number; ms: number }
  | { type: 'page'; page: number; pageCount: number }
  | { type: 'highlightsDrawn'; count: number }
  | { type: 'cardClicked'; noteid: string }
  /** The toolbar's Make card button (the context menu and the key go through the host's command). */
  | { type: 'makeCard' }
  | { type: 'selection'; requestId: number; selection: ReaderSelection | null }
  | { type: 'benchResult'; requestId: number; longestFrameMs: number; frames: number; ms: number; pagesRendered: number }
  | { type: 'error'; message: string };

export const isReaderMessage = (m: unknown): m is WebviewToHost => {
  const o = m as { type?: unknown } | null;
  switch (o?.type) {
    case 'ready':
    case 'makeCard':
      return true;
    case 'firstRender':
    case 'page':
      return Number.isInteger((o as { page?: unknown }).page);
    case 'highlightsDrawn':
      return Number.isInteger((o as { count?: unknown }).count);
    case 'cardClicked':
      return typeof (o as { noteid?: unknown }).noteid === 'string';
    case 'selection':
    case 'benchResult':
      return Number.isInteger((o as { requestId?: unknown }).requestId);
    case 'error':
      return typeof (o as { message?: unknown }).message === 'string';
    default:
      return false;
  }
};
