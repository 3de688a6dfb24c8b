import { performance } from 'node:perf_hooks';
import type { OpenPhases, ReaderProtocol } from '../webviews/pdfReader/protocol';

type PageEvents = ReaderProtocol['pageEvents'];

/**
 * How long one reader took to open, step by step (figures the reader suite prints, not behaviour).
 * PdfReaderSession extends this class so the figures stay readable on the session itself.
 */
export abstract class ReaderOpenFigures {
  /** `bytesSent` when the first page was drawn. */
  bytesAtFirstRender: number | undefined;
  /** Milliseconds from the request (or the editor's creation) to the first drawn page. */
  firstRenderMs: number | undefined;
  /** The same, as the webview counts it from its script's start. */
  webviewFirstRenderMs: number | undefined;
  /** Milliseconds from the request to the opening picture painted (before pdf.js's page), and from the script's start. */
  firstImageMs: number | undefined;
  webviewFirstImageMs: number | undefined;
  /** The page whose cached picture the first HTML carried (none: it was rendered and sent, or not shown). */
  htmlImagePage: number | undefined;
  /** Where that picture came from: the first HTML (cached) or a message once rendered. */
  firstImageSource: 'html' | 'channel' | undefined;
  /** When its `pageImage` reached the webview (ms from the script's start). */
  webviewImageArrivedMs: number | undefined;
  /** Milliseconds from the request to the picture rendered and sent (when the first HTML did not carry it). */
  imageSentMs: number | undefined;
  /** Milliseconds from the request to the first HTML written, to the webview's document start, and to its script's start. */
  htmlMs: number | undefined;
  /** ms from the request: the bridge named the file; VS Code made this editor (a figure: where the wait before the HTML went). */
  readonly foundMs: number | undefined;
  readonly resolvedMs: number;
  documentMs: number | undefined;
  scriptMs: number | undefined;
  /** Milliseconds from the request to the book's ends read and `open` sent (queued until ready), and to the page's `ready`. */
  openSentMs: number | undefined;
  readyMs: number | undefined;
  /** How far pdf.js's canvas stood from the picture it replaced (px; 0: no jump). */
  imageJumpPx: number | undefined;
  /** When each step of opening ended in the webview (ms since its script started). */
  webviewPhases: OpenPhases | undefined;

  /** `openedAt`: performance.now() when the person or an agent asked; `foundMs` as in ReaderIntent. */
  protected constructor(
    protected readonly openedAt: number,
    foundMs: number | undefined,
  ) {
    this.foundMs = foundMs;
    this.resolvedMs = Math.round(performance.now() - this.openedAt);
  }

  /** The page's first drawn page (only the first counts); `bytesSent`: the book's bytes sent by then. */
  protected recordFirstRender(m: PageEvents['firstRender'], bytesSent: number): void {
    this.firstRenderMs ??= Math.round(performance.now() - this.openedAt);
    this.webviewFirstRenderMs ??= m.ms;
    this.webviewPhases ??= m.phases;
    this.bytesAtFirstRender ??= bytesSent;
    this.imageJumpPx ??= m.imageJumpPx;
    // Both processes count from the epoch (performance.timeOrigin), so the webview's document start places on the host's clock.
    if (m.docAt !== undefined && this.documentMs === undefined) {
      this.documentMs = Math.round(m.docAt - (performance.timeOrigin + this.openedAt));
      this.scriptMs = m.scriptMs === undefined ? undefined : this.documentMs + m.scriptMs;
    }
  }

  /** The opening picture became visible in the page (only the first counts). */
  protected recordFirstImage(m: PageEvents['firstImage']): void {
    // `ago`: the picture was painted that long before the page's message (from the first HTML, before its script).
    this.firstImageMs ??= Math.round(performance.now() - this.openedAt - m.ago);
    this.webviewFirstImageMs ??= m.ms;
    this.firstImageSource ??= m.source;
    this.webviewImageArrivedMs ??= m.arrived;
  }
}
