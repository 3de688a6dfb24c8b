import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { HostChannel } from '../webviews/channel/hostChannel';
import {
  readerGuards,
  type BenchResult,
  type ReaderProtocol,
  type ReaderSelection,
} from '../webviews/pdfReader/protocol';
import { pdfReaderHtml } from './pdfReaderHtml';
import { ReaderBookFile } from './readerBookFile';
import { anchoredHighlights, bookOutline } from './readerBridgeData';
import type { ReaderMemory } from './readerMemory';
import { renderScale, type OpeningImage, type ReaderOpeningImages } from './readerOpeningImage';
import { ReaderOpenFigures } from './readerOpenFigures';

/** A page shown this long without a move is where the person reads: its picture is cached (flipping pages renders nothing). */
const PICTURE_REST_MS = 2_000;

/** Why the reader opened: the book, the study set it reads for, where to start, a card to show. */
export interface ReaderIntent {
  bookmd5?: string;
  topicid?: string;
  page?: number;
  noteid?: string;
  /** performance.now() when the person or an agent asked (the first-render figure counts from here). */
  requestedAt?: number;
  /** ms from the request until the bridge named the book's file (a figure). */
  foundMs?: number;
}

export interface ReaderSessionDeps {
  extensionUri: vscode.Uri;
  getClient(): BridgeClient | undefined;
  log: vscode.LogOutputChannel;
  /** Each book's last page and zoom, and the page tone. */
  memory: ReaderMemory;
  /** Pictures of the page a book opens at (shown until pdf.js has drawn it). */
  images: ReaderOpeningImages;
  /** The set the reader reads for when nobody said (the one open in the window, else the first holding the book). */
  defaultSet(bookmd5: string): Promise<{ topicid: string; title: string } | undefined>;
  onPage(session: PdfReaderSession): void;
  onCardClicked(session: PdfReaderSession, noteid: string): void;
  onMakeCard(session: PdfReaderSession): void;
}

/**
 * One open reader: the file's length and ends go to the webview once it is
 * ready, then the byte ranges its pdf.js asks for (readerBookFile.ts); the
 * set, the outline and the anchored cards follow (the cards again whenever the library changes). It
 * remembers the page the webview reports, for GET /context.
 */
export class PdfReaderSession extends ReaderOpenFigures implements vscode.Disposable {
  bookmd5 = '';
  topicid: string | undefined;
  setTitle: string | undefined;
  page = 1;
  pageCount = 0;
  /** pdf.js's scale value ('page-width' or a number as text), as the page last reported it. */
  scale = 'page-width';
  /** Bytes of the book sent to the webview so far (its head and tail, and the ranges its pdf.js asked for). */
  get bytesSent(): number {
    return this.book?.bytesRead ?? 0;
  }
  highlightCount = 0;
  /** What went wrong in the webview (also in the log). */
  readonly errors: string[] = [];
  private book: ReaderBookFile | undefined;
  private readonly channel: HostChannel<ReaderProtocol>;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly disposed = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposed.event;
  private readonly rendered = new vscode.EventEmitter<void>();
  /** Caches the page's picture once the person rests on it (see listen's 'page'). */
  private restTimer: ReturnType<typeof setTimeout> | undefined;
  /** Fires when the first page is drawn. */
  readonly onDidRender = this.rendered.event;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    private readonly deps: ReaderSessionDeps,
    intent: ReaderIntent,
  ) {
    super(intent.requestedAt ?? performance.now(), intent.foundMs);
    this.topicid = intent.topicid;
    this.page = intent.page ?? 1;
    const webview = panel.webview;
    webview.options = {
      enableScripts: true,
      localResourceRoots: [
        vscode.Uri.joinPath(deps.extensionUri, 'dist'),
        vscode.Uri.joinPath(deps.extensionUri, 'media'),
      ],
    };
    this.channel = new HostChannel<ReaderProtocol>(webview, { guards: readerGuards, log: (m) => deps.log.warn(m) });
    this.listen();
    this.channel.onReady(() => (this.readyMs ??= Math.round(performance.now() - this.openedAt)));
    this.disposables.push(
      this.channel,
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState(() => panel.active && deps.onPage(this)),
    );
    const book = ReaderBookFile.open(uri, () => vscode.workspace.fs.readFile(uri));
    webview.html = pdfReaderHtml(webview, deps.extensionUri, this.firstPaint(intent));
    this.htmlMs = Math.round(performance.now() - this.openedAt);
    void this.start(book, intent).catch((err: unknown) => {
      this.errors.push(err instanceof Error ? err.message : String(err));
      deps.log.error(`reader: ${uri.fsPath}: ${err instanceof Error ? err.message : String(err)}`);
      this.channel.notify('notice', {
        kind: 'error',
        message: `Could not open ${uri.fsPath}: ${err instanceof Error ? err.message : String(err)}`,
      });
    });
  }

  /**
   * The tone, and the picture of the page the book opens at: from the cache, into the first HTML; else rendered
   * now, while the webview loads, and sent once ready. None for a card (the reader scrolls to its rectangle).
   */
  private firstPaint(intent: ReaderIntent): Parameters<typeof pdfReaderHtml>[2] {
    const spot = intent.bookmd5 ? this.deps.memory.spot(intent.bookmd5) : undefined;
    const first = { tone: this.deps.memory.tone(), scale: spot?.scale ?? null };
    if (!intent.bookmd5 || intent.noteid) return first;
    const page = intent.page ?? spot?.page ?? 1;
    const image = this.deps.images.cached(intent.bookmd5, page);
    if (image) this.htmlImagePage = page;
    else this.sendImage(intent.bookmd5, page, first.scale);
    return { ...first, image };
  }

  private sendImage(bookmd5: string, page: number, scale: string | null): void {
    if (this.uri.scheme !== 'file') return;
    void this.deps.images
      .render(bookmd5, this.uri.fsPath, page, renderScale(scale ?? undefined))
      .then((img: OpeningImage | undefined) => {
        if (!img || this.firstRenderMs !== undefined || !this.disposables.length) return;
        this.imageSentMs = Math.round(performance.now() - this.openedAt);
        const webp = img.webp.buffer.slice(
          img.webp.byteOffset,
          img.webp.byteOffset + img.webp.byteLength,
        ) as ArrayBuffer;
        this.channel.notify('pageImage', { page: img.page, widthPt: img.widthPt, heightPt: img.heightPt, scale, webp });
      });
  }

  private async start(opening: Promise<ReaderBookFile>, intent: ReaderIntent): Promise<void> {
    const book = await opening;
    if (!this.disposables.length) return book.dispose(); // closed while opening
    this.book = book;
    this.disposables.push(book);
    // The library names a document by the MD5 of its bytes.
    this.bookmd5 = intent.bookmd5 ?? (await book.md5());
    // Opened without a place to go (no page, no card): where the person left this book.
    const spot = this.deps.memory.spot(this.bookmd5);
    // Opened from the file (Open With…): its picture could only start now, once the book is known by its MD5.
    if (!intent.bookmd5 && !intent.noteid)
      this.sendImage(this.bookmd5, intent.page ?? spot?.page ?? 1, spot?.scale ?? null);
    if (spot && intent.page === undefined && !intent.noteid) this.page = spot.page;
    if (spot) this.scale = spot.scale;
    // The first page needs only the book: the set, the outline and the highlights (bridge calls) come after it.
    this.channel.notify('open', {
      length: book.length,
      ...(await book.ends()),
      bookmd5: this.bookmd5,
      title: this.uri.path.split('/').pop() ?? 'PDF',
      page: this.page,
      scale: spot?.scale ?? null,
      tone: this.deps.memory.tone(),
    });
    this.openSentMs = Math.round(performance.now() - this.openedAt);
    if (intent.noteid) this.channel.notify('goto', { page: this.page, noteid: intent.noteid });
    this.deps.onPage(this);
    if (!this.topicid) {
      const set = await this.deps.defaultSet(this.bookmd5).catch(() => undefined);
      this.topicid = set?.topicid;
      this.setTitle = set?.title;
    } else
      this.setTitle = (
        await this.deps
          .getClient()
          ?.listStudySets()
          .catch(() => [])
      )?.find((s) => s.topicid === this.topicid)?.title;
    this.channel.notify('context', {
      outline: await bookOutline(this.deps.getClient(), this.bookmd5),
      setTitle: this.setTitle ?? null,
    });
    await this.reloadHighlights();
  }

  /** The set's anchored cards in this book, drawn in their palette colours. */
  async reloadHighlights(): Promise<void> {
    const client = this.deps.getClient();
    if (!client || !this.topicid || !this.bookmd5) return;
    const items = await anchoredHighlights(client, this.topicid, this.bookmd5);
    this.highlightCount = items.length;
    this.channel.notify('highlights', items);
  }

  /** Reads for another study set from now on (its highlights, its cards). */
  async useSet(topicid: string): Promise<void> {
    this.topicid = topicid;
    this.setTitle = (
      await this.deps
        .getClient()
        ?.listStudySets()
        .catch(() => [])
    )?.find((s) => s.topicid === topicid)?.title;
    await this.reloadHighlights();
  }

  goto(page: number, noteid?: string): void {
    this.page = page;
    this.channel.notify('goto', { page, noteid });
  }

  notice(message: string, kind: 'info' | 'error' = 'info'): void {
    this.channel.notify('notice', { message, kind });
  }

  /** The text selected in the book (or the one the context menu opened on). */
  selection(): Promise<ReaderSelection | null> {
    return this.channel.request('getSelection');
  }

  /** Scrolls through `pages` pages in the webview and times its frames (the suite prints the figure). */
  benchScroll(from: number, pages: number): Promise<BenchResult> {
    return this.channel.request('benchScroll', { from, pages }, { timeoutMs: 120_000 });
  }

  private listen(): void {
    const c = this.channel;
    c.on('firstRender', (m) => {
      this.recordFirstRender(m, this.bytesSent);
      this.rendered.fire();
    });
    c.on('firstImage', (m) => this.recordFirstImage(m));
    c.on('page', (m) => {
      this.page = m.page;
      this.pageCount = m.pageCount;
      this.scale = m.scale;
      this.deps.onPage(this);
      if (this.bookmd5)
        void this.deps.memory.remember(this.bookmd5, { page: m.page, scale: m.scale }).catch(() => undefined);
      // The page a person rests on is cached as the next opening's picture now, not only when this reader closes:
      // the book opened again in another window, or after a reload or a crash (no close ran), shows it at once.
      clearTimeout(this.restTimer);
      this.restTimer = setTimeout(() => this.rememberPicture(), PICTURE_REST_MS);
    });
    c.on('tone', (m) => void this.deps.memory.setTone(m.tone).catch(() => undefined));
    c.on('highlightsDrawn', (m) => (this.highlightCount = m.count));
    c.on('cardClicked', (m) => this.deps.onCardClicked(this, m.noteid));
    c.on('makeCard', () => this.deps.onMakeCard(this));
    c.handle('readRange', ({ begin, end }) =>
      this.book ? this.book.read(begin, end) : Promise.reject(new Error('no book open')),
    );
    c.on('error', (m) => {
      this.errors.push(m.message);
      this.deps.log.warn(`reader webview: ${m.message}`);
    });
  }

  /** Caches the current page's picture (off this thread, at low priority; nothing when it is cached already). */
  private rememberPicture(): void {
    if (this.bookmd5 && this.uri.scheme === 'file')
      this.deps.images.remember(this.bookmd5, this.uri.fsPath, this.page, renderScale(this.scale));
  }

  dispose(): void {
    if (!this.disposables.length) return;
    // The page it was left at opens it next time: its picture is cached now, off this thread.
    clearTimeout(this.restTimer);
    this.rememberPicture();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.disposed.fire();
    this.disposed.dispose();
    this.rendered.dispose();
  }
}
