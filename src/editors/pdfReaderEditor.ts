import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import type { CreatedCard } from '../client/cardsApi';
import type { OpenRequest } from '../server/domain/ui/uiHost';
import { PdfReaderSession, type ReaderIntent } from './pdfReaderSession';
import type { ReaderMemory } from './readerMemory';
import { ReaderOpeningImages, renderScale } from './readerOpeningImage';
import { MIND_MAP_VIEW_TYPE } from '../webviews/mindMap/protocol';

export const PDF_READER_VIEW_TYPE = 'studyBridge.pdfReader';
/** A card excerpt holds at most this many characters (the card route's limit). */
const EXCERPT_MAX = 5000;

export interface PdfReaderDeps {
  extensionUri: vscode.Uri;
  getClient: () => BridgeClient | undefined;
  log: vscode.LogOutputChannel;
  /** Each book's last page and zoom, and the page tone (readerMemory.ts). */
  memory: ReaderMemory;
  /** The bridge's data folder (library files live in <dataDir>/library/). */
  dataDir: () => string;
  /** The study set open in this window (GET /context), if any. */
  openSet(): Promise<{ topicid: string; title: string } | undefined>;
  /** The reader in front shows this page (undefined: no reader). */
  showPage(at: { bookmd5: string; page: number } | undefined): void;
  /** The card selected in the Study Sets view, when it belongs to `topicid`: Make card puts the new card under it. */
  selectedCard(topicid: string): string | undefined;
  revealCard(studySet: Pick<StudySet, 'topicid' | 'title'>, noteid: string): Promise<void>;
  refreshViews(): void;
}

class ReaderDocument implements vscode.CustomDocument {
  constructor(readonly uri: vscode.Uri) {}
  dispose(): void {}
}

/** The editor column of the mind map in front, if the active tab is one. */
function activeMindMapColumn(): vscode.ViewColumn | undefined {
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  return tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith(MIND_MAP_VIEW_TYPE)
    ? tab.group.viewColumn
    : undefined;
}

/** Thrown for what the person should read as is (no stack in the log). */
export class ReaderError extends Error {}

/**
 * The PDF reader: a read-only custom editor over a library PDF (pdf.js in a
 * webview). Opened from a document of the Study Sets view, from a card's
 * source page, from a .pdf of the library folder ("Open With…"), or by an
 * agent (open, focus, locate navigate). It shows the set's anchored cards,
 * makes excerpt cards of a selection, and tells the window's UiHost its page.
 */
export class PdfReaderEditorProvider implements vscode.CustomReadonlyEditorProvider<ReaderDocument>, vscode.Disposable {
  private readonly sessions = new Set<PdfReaderSession>();
  /** Intents of readers being opened, by file URI, taken by resolveCustomEditor. */
  private readonly intents = new Map<string, ReaderIntent>();
  private active: PdfReaderSession | undefined;
  private readonly opened = new vscode.EventEmitter<PdfReaderSession>();
  /** Fires when a reader opens (tests wait on it). */
  readonly onDidOpen = this.opened.event;
  private readonly registration: vscode.Disposable;
  private readonly images: ReaderOpeningImages;

  constructor(private readonly deps: PdfReaderDeps) {
    this.images = new ReaderOpeningImages(deps.dataDir);
    this.registration = vscode.window.registerCustomEditorProvider(PDF_READER_VIEW_TYPE, this, {
      // Parsing a long book again on every tab switch would cost more than the memory kept.
      webviewOptions: { retainContextWhenHidden: true },
      supportsMultipleEditorsPerDocument: false,
    });
  }

  openCustomDocument(uri: vscode.Uri): ReaderDocument {
    return new ReaderDocument(uri);
  }

  resolveCustomEditor(document: ReaderDocument, panel: vscode.WebviewPanel): void {
    const intent = this.intents.get(document.uri.toString()) ?? {};
    this.intents.delete(document.uri.toString());
    const session = new PdfReaderSession(
      document.uri,
      panel,
      {
        extensionUri: this.deps.extensionUri,
        getClient: this.deps.getClient,
        log: this.deps.log,
        memory: this.deps.memory,
        images: this.images,
        defaultSet: (bookmd5) => this.defaultSet(bookmd5),
        onPage: (s) => {
          if (s.panel.active || this.active === s) {
            this.active = s;
            this.deps.showPage({ bookmd5: s.bookmd5, page: s.page });
          }
        },
        onCardClicked: (s, noteid) => void this.cardClicked(s, noteid),
        onMakeCard: (s) => void vscode.commands.executeCommand('studyBridge.reader.makeCard', { session: s }),
      },
      intent,
    );
    this.sessions.add(session);
    if (panel.active || !this.active) this.active = session;
    session.onDidDispose(() => {
      this.sessions.delete(session);
      if (this.active === session) {
        this.active = [...this.sessions].find((s) => s.panel.active) ?? [...this.sessions].at(-1);
        this.deps.showPage(this.active && { bookmd5: this.active.bookmd5, page: this.active.page });
      }
    });
    this.opened.fire(session);
  }

  /** The reader in front (or the last one in front). */
  get current(): PdfReaderSession | undefined {
    return this.active;
  }

  get all(): readonly PdfReaderSession[] {
    return [...this.sessions];
  }

  /**
   * Opens (or brings forward) the reader of a library document at a page;
   * with `noteid`, scrolled to that card's rectangle. Resolves with its session.
   */
  async openBook(target: {
    bookmd5: string;
    topicid?: string;
    page?: number;
    noteid?: string;
    preserveFocus?: boolean;
    beside?: boolean;
  }): Promise<PdfReaderSession> {
    const requestedAt = performance.now();
    // The reader never covers a mind map the person is looking at, nor the panel that asked for it (`beside`: review):
    // it opens (or moves) beside it.
    const mapColumn = target.beside ? vscode.window.tabGroups.activeTabGroup.viewColumn : activeMindMapColumn();
    const bringForward = (s: PdfReaderSession) => {
      s.panel.reveal(
        mapColumn && s.panel.viewColumn === mapColumn ? vscode.ViewColumn.Beside : s.panel.viewColumn,
        target.preserveFocus,
      );
      if (target.topicid && target.topicid !== s.topicid) void s.useSet(target.topicid);
      if (target.page || target.noteid) s.goto(target.page ?? s.page, target.noteid);
      return s;
    };
    const byBook = [...this.sessions].find((s) => s.bookmd5 === target.bookmd5);
    if (byBook) return bringForward(byBook);
    const client = this.deps.getClient();
    if (!client) throw new ReaderError('The bridge is not running.');
    const file = await client.reader.findFile(target.bookmd5, target.topicid);
    if (!file) throw new ReaderError(`Document ${target.bookmd5} is not in a study set of this library.`);
    const uri = vscode.Uri.file(
      path.join(this.deps.dataDir(), 'library', ...file.folder.split('/').filter(Boolean), file.filename),
    );
    // Still loading (its book not read yet): the same file's reader.
    const byFile = [...this.sessions].find((s) => s.uri.toString() === uri.toString());
    if (byFile) return bringForward(byFile);
    // The opening page's picture starts rendering now, while VS Code makes the editor and its webview.
    const spot = this.deps.memory.spot(target.bookmd5);
    if (!target.noteid)
      this.images.remember(target.bookmd5, uri.fsPath, target.page ?? spot?.page ?? 1, renderScale(spot?.scale));
    this.intents.set(uri.toString(), {
      bookmd5: target.bookmd5,
      topicid: target.topicid,
      page: target.page,
      noteid: target.noteid,
      requestedAt,
      foundMs: Math.round(performance.now() - requestedAt),
    });
    const opened = new Promise<PdfReaderSession>((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new ReaderError(`The reader of ${file.filename} did not open.`));
      }, 30_000);
      const sub = this.onDidOpen((s) => {
        if (s.uri.toString() !== uri.toString()) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(s);
      });
    });
    await vscode.commands.executeCommand('vscode.openWith', uri, PDF_READER_VIEW_TYPE, {
      preview: false,
      preserveFocus: target.preserveFocus,
      ...(mapColumn ? { viewColumn: vscode.ViewColumn.Beside } : {}),
    });
    return opened;
  }

  /**
   * What an agent asked the window to show (open, focus, locate navigate):
   * a card with a source page opens the reader there; a document opens at its
   * page. A set without a document, or a card without a page, leaves the reader alone.
   */
  async follow(req: OpenRequest): Promise<void> {
    const client = this.deps.getClient();
    if (!client) return;
    if (req.noteid) {
      const [note] = (await client.cards.batchGet([req.noteid])).notes;
      const a = note?.sourceAnchor;
      if (a?.bookmd5 && a.page) {
        await this.openBook({
          bookmd5: a.bookmd5,
          topicid: req.topicid ?? note.topicid,
          page: a.page,
          noteid: req.noteid,
          preserveFocus: true,
        });
        return;
      }
    }
    if (req.bookmd5)
      await this.openBook({
        bookmd5: req.bookmd5,
        topicid: req.topicid ?? (await this.deps.openSet())?.topicid,
        page: req.page,
        preserveFocus: true,
      });
  }

  /** Every reader redraws its highlights (the library changed). */
  refreshAll(): void {
    for (const s of this.sessions) void s.reloadHighlights().catch(() => undefined);
  }

  /**
   * Make card: the selected text of the reader in front becomes an excerpt
   * card under the card selected in the Study Sets view (or the set's root),
   * anchored by the bridge to the selected text's glyphs on the page (the
   * selection's box only picks where on the page, and is the anchor when the
   * text cannot be found there).
   */
  async makeCard(session = this.active): Promise<CreatedCard & { title: string }> {
    if (!session) throw new ReaderError('Open a book in the reader first.');
    const client = this.deps.getClient();
    if (!client) throw new ReaderError('The bridge is not running.');
    if (!session.topicid)
      throw new ReaderError(
        'This book is not in a study set, so there is nowhere to put a card. Add it to a set first.',
      );
    const sel = await session.selection();
    if (!sel) throw new ReaderError('Select text in the book first, then choose Make card.');
    if (sel.text.length > EXCERPT_MAX)
      throw new ReaderError(
        `The selection is ${sel.text.length} characters; a card excerpt holds at most ${EXCERPT_MAX}. Select less.`,
      );
    const parentNoteId = this.deps.selectedCard(session.topicid);
    const created = await client.reader.makeCard(session.topicid, {
      parentNoteId,
      excerpt: { bookmd5: session.bookmd5, page: sel.page, text: sel.text, near: sel.rect },
    });
    // Text the bridge cannot find near the selection keeps the selection's box: the person is told.
    const warnings = (created.warnings ?? []) as Array<{ code: string; message: string }>;
    const boxed = warnings.find((w) => w.code === 'EXCERPT_SELECTION_BOX');
    session.notice(`Card made from page ${sel.page}: “${created.title}”${boxed ? `. ${boxed.message}` : ''}`);
    await session.reloadHighlights();
    this.deps.refreshViews();
    void this.deps
      .revealCard({ topicid: session.topicid, title: session.setTitle ?? '' }, created.noteid)
      .catch(() => undefined);
    return created;
  }

  private async cardClicked(session: PdfReaderSession, noteid: string): Promise<void> {
    if (!session.topicid) return;
    await this.deps
      .revealCard({ topicid: session.topicid, title: session.setTitle ?? '' }, noteid)
      .catch(() => undefined);
  }

  /** The set open in the window when it holds the book, else the first set (by title) that does. */
  private async defaultSet(bookmd5: string): Promise<{ topicid: string; title: string } | undefined> {
    const client = this.deps.getClient();
    if (!client) return undefined;
    const sets = await client.reader.setsWith(bookmd5);
    const open = await this.deps.openSet();
    return sets.find((s) => s.topicid === open?.topicid) ?? sets[0];
  }

  dispose(): void {
    for (const s of [...this.sessions]) s.dispose();
    this.registration.dispose();
    this.opened.dispose();
    this.images.dispose();
  }
}
