// The editors and panels of the window (result.md, reviews, mind maps, the PDF
// reader), each wired to the client, the change feed and the sidebar. activate
// calls openPanels once; everything made here goes into context.subscriptions.
import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { ResultMarkdownEditorProvider } from '../editors/resultMarkdownEditor';
import { PdfReaderEditorProvider } from '../editors/pdfReaderEditor';
import { ReaderMemory } from '../editors/readerMemory';
import { MindMapPanels } from '../views/mindMapPanels';
import type { BridgeHost } from './bridgeHost';
import type { LibraryChangeFeed } from './changeFeed';
import type { Sidebar } from './sidebar';
import type { WorkbenchUi } from './workbenchUi';
import { registerBundleCommands } from './bundleCommands';
import { registerReview, type Review } from './reviewCommands';
import { registerMindMapCommands } from './mindMapCommands';
import { registerReaderCommands } from './readerCommands';
import { registerGoToCard } from './goToCardCommands';
import { wireAnkiGui } from './ankiGuiWindow';
import { registerDeckOptions } from './deckOptionsCommands';

/** What the window's parts are wired with (made in activate). */
export interface Wiring {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  ui: WorkbenchUi;
  bridgeHost: BridgeHost;
  getClient: () => BridgeClient | undefined;
  /** The client, or a message the person can act on when the bridge is not up (commands show it). */
  requireClient: () => BridgeClient;
  sidebar: Sidebar;
  refreshViews: () => void;
  /** Anyone's write (an agent's, this window's, another window's) refreshes what follows it. */
  feed: LibraryChangeFeed;
}

export interface Panels {
  resultEditor: ResultMarkdownEditorProvider;
  review: Review;
  mindMaps: MindMapPanels;
  reader: PdfReaderEditorProvider;
}

export function openPanels(w: Wiring): Panels {
  const resultEditor = openResultEditor(w);
  // The review panel opens a card's source in the reader, made just below.
  const review = openReview(w, (s) => reader.openBook({ ...s, beside: true, preserveFocus: true }));
  openDeckOptions(w, review);
  const mindMaps = openMindMaps(w);
  const reader = openReader(w);
  return { resultEditor, review, mindMaps, reader };
}

/** Book splitting: the result.md editor (text + card preview) and the bundle commands. */
function openResultEditor(w: Wiring): ResultMarkdownEditorProvider {
  const { context, log, getClient, refreshViews } = w;
  const revealImport = (topicid: string, rootNoteId: string) =>
    w.sidebar.revealCard({ topicid, title: '' }, rootNoteId);
  const resultEditor = new ResultMarkdownEditorProvider({
    extensionUri: context.extensionUri,
    getClient,
    log,
    onSubmitted: async (bundleId, receipt) => {
      refreshViews();
      const known = w.sidebar.views.bundles.bundles.find((b) => b.bundleId === bundleId);
      const topicid =
        known?.topicid ?? (await getClient()?.bundles.list())?.bundles.find((b) => b.bundleId === bundleId)?.topicid;
      if (topicid) await revealImport(topicid, receipt.rootNoteId);
    },
  });
  context.subscriptions.push(
    resultEditor,
    ...registerBundleCommands({
      log,
      requireClient: w.requireClient,
      refreshViews,
      revealImport,
    }),
  );
  return resultEditor;
}

/** Reviews: the panel of a deck ("Review Now"), the due-today count in the status bar. */
function openReview(w: Wiring, openSource: Parameters<typeof registerReview>[0]['openSource']): Review {
  const review = registerReview({
    extensionUri: w.context.extensionUri,
    log: w.log,
    getClient: w.getClient,
    openSource,
  });
  w.context.subscriptions.push(
    ...review.disposables,
    ...wireAnkiGui({ ...w, revealCard: w.sidebar.revealCard, reviewPanels: review.panels }),
    w.feed.onDidChange(() => void review.dueStatus.refresh()),
    w.bridgeHost.onDidChange((state) => state.mode !== 'starting' && void review.dueStatus.refresh()),
  );
  return review;
}

/** Deck Options (a deck's preset and its limits): a save refreshes the due counts it changes. */
function openDeckOptions(w: Wiring, review: Review): void {
  const deckOptions = registerDeckOptions({
    extensionUri: w.context.extensionUri,
    log: w.log,
    getClient: w.getClient,
    requireClient: w.requireClient,
    onSaved: () => {
      void review.dueStatus.refresh();
      w.refreshViews();
    },
  });
  w.context.subscriptions.push(...deckOptions.disposables);
}

/** Mind maps of study sets: they follow the change feed like the views. */
function openMindMaps(w: Wiring): MindMapPanels {
  const mindMaps = new MindMapPanels({
    extensionUri: w.context.extensionUri,
    getClient: w.getClient,
    log: w.log,
    onLibraryChange: w.feed.onDidChange,
    onBridgeChange: w.bridgeHost.onDidChange,
    revealCard: w.sidebar.revealCard,
  });
  w.context.subscriptions.push(
    mindMaps,
    ...registerMindMapCommands({ log: w.log, requireClient: w.requireClient, mindMaps }),
  );
  return mindMaps;
}

/** The PDF reader: a library book with its cards' highlights, Make card, and what agents open or focus. */
function openReader(w: Wiring): PdfReaderEditorProvider {
  const { context, log, ui, requireClient, sidebar } = w;
  const reader = new PdfReaderEditorProvider({
    extensionUri: context.extensionUri,
    getClient: w.getClient,
    log,
    memory: new ReaderMemory(context.globalState),
    dataDir: () => w.bridgeHost.state.dataDir,
    openSet: async () => {
      const s = (await ui.context()).studySet;
      return s && !s.isDeck ? { topicid: s.topicid, title: s.title } : undefined;
    },
    showPage: (at) => ui.showReader(at),
    selectedCard: (topicid) => sidebar.selectedCard(topicid),
    revealCard: sidebar.revealCard,
    refreshViews: w.refreshViews,
  });
  context.subscriptions.push(
    reader,
    ...registerReaderCommands({ log, requireClient, reader }),
    ...registerGoToCard({ log, requireClient, reader, revealCard: sidebar.revealCard }),
    w.feed.onDidChange(() => reader.refreshAll()),
    ui.onDidOpen(
      (req) =>
        void reader
          .follow(req)
          .catch((err: unknown) => log.warn(`reader: ${err instanceof Error ? err.message : String(err)}`)),
    ),
  );
  return reader;
}
