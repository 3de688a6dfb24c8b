// Composition root for VS Code: hosts (or attaches to) the bridge, and wires
// the status bar, log, commands, views and MCP discovery onto it. Everything
// registered goes into context.subscriptions; deactivate closes the server.
import * as vscode from 'vscode';
import { performance } from 'node:perf_hooks';
import { BridgeHost } from './extension/bridgeHost';
import type { BridgeMode, BridgeState } from './extension/bridgeState';
import { showRecoveryNotice } from './extension/recoveryNotice';
import { BridgeStatusBar } from './extension/statusBar';
import { registerCommands, UserFacingError } from './extension/commands';
import { registerCardCommands } from './extension/cardCommands';
import { LibraryChangeFeed } from './extension/changeFeed';
import { registerMcpProvider } from './extension/mcpProvider';
import { affectsBridge, readBridgeOptions } from './extension/settings';
import { WorkbenchUi } from './extension/workbenchUi';
import type { BridgeNode } from './views/bridgeTreeProvider';
import type { StudySetsProvider } from './views/studySetsView';
import type { DecksProvider } from './views/decksView';
import type { BundlesProvider } from './views/bundlesView';
import type { AgentsProvider } from './views/agentsView';
import { createSidebar } from './extension/sidebar';
import type { BridgeClient } from './client/bridgeClient';
import { ResultMarkdownEditorProvider } from './editors/resultMarkdownEditor';
import { registerBundleCommands } from './extension/bundleCommands';
import { registerReview, type Review } from './extension/reviewCommands';
import { MindMapPanels } from './views/mindMapPanel';
import { registerMindMapCommands } from './extension/mindMapCommands';
import { PdfReaderEditorProvider } from './editors/pdfReaderEditor';
import { registerReaderCommands } from './extension/readerCommands';
import { registerAgentCommands } from './extension/agentCommands';
import { registerApprovalPrompts } from './extension/approvalPrompts';
import { ReaderMemory } from './editors/readerMemory';
import { registerAnnotationCommands } from './extension/annotationCommands';
import { registerAnkiCommands } from './extension/ankiCommands';
import { registerGoToCard } from './extension/goToCardCommands';

/** What `activate` returns: used by the in-VS-Code tests and by other extensions. */
export interface StudyBridgeApi {
  readonly mode: BridgeMode;
  readonly state: BridgeState;
  readonly baseUrl: string | undefined;
  readonly port: number | undefined;
  readonly dataDir: string;
  readonly client: BridgeClient | undefined;
  /** Milliseconds activate() took: registrations only, the bridge starts behind it. */
  readonly activationMs: number;
  /** Milliseconds from the start of activate() to a listening (or attached) bridge; undefined until then. */
  readonly listeningMs: number | undefined;
  readonly statusBarText: string;
  /** File behind the "Study Bridge" log channel (the request log). */
  readonly logFile: string;
  readonly mcpRegistered: boolean;
  readonly views: {
    studySets: StudySetsProvider;
    decks: DecksProvider;
    bundles: BundlesProvider;
    agents: AgentsProvider;
  };
  readonly trees: {
    studySets: vscode.TreeView<BridgeNode>;
    decks: vscode.TreeView<BridgeNode>;
    bundles: vscode.TreeView<BridgeNode>;
    agents: vscode.TreeView<BridgeNode>;
  };
  /** The result.md editor (its open previews, their state and problems). */
  readonly resultEditor: ResultMarkdownEditorProvider;
  /** The change feed the views follow (GET /library/changes). */
  readonly feed: LibraryChangeFeed;
  /** The PDF reader (its open books, their pages, Make card). */
  readonly reader: PdfReaderEditorProvider;
  /** Open mind maps of study sets (one panel per set). */
  readonly mindMaps: MindMapPanels;
  /** Review panels of decks and the status bar count of cards due today. */
  readonly review: Pick<Review, 'panels' | 'dueStatus'>;
  /** Resolves when a pending start/restart/takeover has settled. */
  whenSettled(): Promise<BridgeState>;
  /** Checkpoints the bridge this window hosts, on the thread it runs on (state.thread); rejects when not hosting. */
  checkpoint(): Promise<{ ms: number; threadId: number }>;
}

let host: BridgeHost | undefined;
let changeFeed: LibraryChangeFeed | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<StudyBridgeApi> {
  const t0 = performance.now();
  const version = String((context.extension.packageJSON as { version?: string }).version ?? '0.0.0');

  const log = vscode.window.createOutputChannel('Study Bridge', { log: true });
  context.subscriptions.push(log);

  const ui = new WorkbenchUi();
  context.subscriptions.push(ui);
  const bridgeOptions = () => ({ ...readBridgeOptions(context), ui });
  const bridgeHost = new BridgeHost(bridgeOptions, log, {
    codeCacheDir: vscode.Uri.joinPath(context.globalStorageUri, 'code-cache').fsPath,
  });
  host = bridgeHost;
  // Disposed explicitly (and awaited) in deactivate; this is the safety net.
  context.subscriptions.push({ dispose: () => void bridgeHost.dispose() });
  context.subscriptions.push(
    bridgeHost.onRequest(
      (e) =>
        log.info(
          `${e.method} ${e.path} ${e.status} ${Math.round(e.ms)}ms`,
        ) /* paths only: the server never passes query strings */,
    ),
  );

  const statusBar = new BridgeStatusBar();
  context.subscriptions.push(statusBar);

  const getClient = () => bridgeHost.client;
  /** The client, or a message the person can act on when the bridge is not up (commands show it). */
  const requireClient = () => {
    const client = getClient();
    if (!client) throw new UserFacingError(`The bridge is ${bridgeHost.state.mode}. Restart it from the status bar.`);
    return client;
  };
  const sidebar = createSidebar(getClient, ui, (m) => log.info(m));
  const { views, trees, revealCard } = sidebar;
  const refreshViews = () => sidebar.refresh();
  context.subscriptions.push(...sidebar.disposables);

  // Book splitting: the result.md editor (text + card preview) and the bundle commands.
  const revealImport = (topicid: string, rootNoteId: string) => revealCard({ topicid, title: '' }, rootNoteId);
  const resultEditor = new ResultMarkdownEditorProvider({
    extensionUri: context.extensionUri,
    getClient,
    log,
    onSubmitted: async (bundleId, receipt) => {
      refreshViews();
      const known = views.bundles.bundles.find((b) => b.bundleId === bundleId);
      const topicid =
        known?.topicid ?? (await getClient()?.bundles.list())?.bundles.find((b) => b.bundleId === bundleId)?.topicid;
      if (topicid) await revealImport(topicid, receipt.rootNoteId);
    },
  });
  context.subscriptions.push(
    resultEditor,
    ...registerBundleCommands({
      log,
      requireClient,
      refreshViews,
      revealImport,
    }),
  );

  // Anyone's write (an agent's, this window's, another window's) refreshes the views.
  const feed = new LibraryChangeFeed(getClient, log);
  changeFeed = feed;
  context.subscriptions.push(
    feed,
    feed.onDidChange(() => refreshViews()),
  );
  context.subscriptions.push(
    ...registerApprovalPrompts({ log, getClient, feed, onBridgeChange: bridgeHost.onDidChange }),
  );

  // Reviews: the panel of a deck ("Review Now"), the due-today count in the status bar.
  const review = registerReview({
    extensionUri: context.extensionUri,
    log,
    getClient,
    openSource: (s) => reader.openBook({ ...s, beside: true, preserveFocus: true }),
  });
  context.subscriptions.push(
    ...review.disposables,
    feed.onDidChange(() => void review.dueStatus.refresh()),
    bridgeHost.onDidChange((state) => state.mode !== 'starting' && void review.dueStatus.refresh()),
  );

  // Mind maps of study sets: they follow the change feed like the views.
  const mindMaps = new MindMapPanels({
    extensionUri: context.extensionUri,
    getClient,
    log,
    onLibraryChange: feed.onDidChange,
    onBridgeChange: bridgeHost.onDidChange,
    revealCard,
  });
  context.subscriptions.push(
    mindMaps,
    ...registerMindMapCommands({
      log,
      requireClient,
      mindMaps,
    }),
  );

  // The PDF reader: a library book with its cards' highlights, Make card, and what agents open or focus.
  const reader = new PdfReaderEditorProvider({
    extensionUri: context.extensionUri,
    getClient,
    log,
    memory: new ReaderMemory(context.globalState),
    dataDir: () => bridgeHost.state.dataDir,
    openSet: async () => {
      const s = (await ui.context()).studySet;
      return s && !s.isDeck ? { topicid: s.topicid, title: s.title } : undefined;
    },
    showPage: (at) => ui.showReader(at),
    selectedCard: (topicid) => sidebar.selectedCard(topicid),
    revealCard,
    refreshViews,
  });
  context.subscriptions.push(
    reader,
    ...registerReaderCommands({
      log,
      requireClient,
      reader,
    }),
    ...registerGoToCard({ log, requireClient, reader, revealCard }),
    feed.onDidChange(() => reader.refreshAll()),
    ui.onDidOpen(
      (req) =>
        void reader
          .follow(req)
          .catch((err: unknown) => log.warn(`reader: ${err instanceof Error ? err.message : String(err)}`)),
    ),
  );

  const recoveryChecked = new Set<string>();
  context.subscriptions.push(
    bridgeHost.onDidChange((state) => {
      statusBar.update(state);
      void vscode.commands.executeCommand('setContext', 'studyBridge.state', state.mode);
      if (state.mode !== 'starting') refreshViews();
      // Follow the bridge in use; no poll may hold a closing server open.
      // Only the window that opened the library (and so ran its recovery) reports what recovery found.
      if (state.mode === 'hosting' && state.instanceNonce && !recoveryChecked.has(state.instanceNonce)) {
        recoveryChecked.add(state.instanceNonce);
        const client = getClient();
        if (client)
          void showRecoveryNotice(client, log).catch((err: unknown) =>
            log.warn(`recovery report: ${err instanceof Error ? err.message : String(err)}`),
          );
      }
      if (state.mode === 'hosting' || state.mode === 'attached') {
        void feed.restart();
        resultEditor.recheckAll();
        mindMaps.redrawAll();
      } else void feed.stop();
    }),
  );

  const restartBridge = async () => {
    await feed.stop();
    await bridgeHost.restart();
  };
  context.subscriptions.push(
    ...registerCommands({
      host: bridgeHost,
      log,
      refreshViews,
      restartBridge,
      revealStudySets: async () => {
        await vscode.commands.executeCommand('studyBridge.studySets.focus');
      },
    }),
    ...registerAgentCommands({ log, requireClient, agents: views.agents }),
    ...registerAnnotationCommands({ log, requireClient, refreshViews }),
    ...registerAnkiCommands({ log, requireClient, refreshViews }),
    ...registerCardCommands({
      log,
      requireClient,
      refreshViews,
      revealCard,
      closeStudySet: (topicid) => ui.close(topicid),
      showStudySet: (set) => sidebar.showStudySet(set),
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsBridge(e)) void restartBridge();
    }),
  );

  const mcpRegistered = registerMcpProvider(bridgeHost, context.subscriptions, version, log, context.secrets);

  // Not awaited: VS Code waits on activate, and the worker loading the server takes a second. Views and
  // commands follow bridgeHost's state changes ('starting' first), so they fill when it listens.
  let listeningMs: number | undefined;
  const started = bridgeHost.start().then(
    () => {
      listeningMs = performance.now() - t0;
      log.info(`bridge ${bridgeHost.state.mode} ${listeningMs.toFixed(0)} ms after activation began`);
    },
    (e: unknown) => log.error(`bridge start failed: ${(e as Error)?.message ?? e}`),
  );
  const activationMs = performance.now() - t0;
  log.info(
    `activated in ${activationMs.toFixed(0)} ms (MCP provider ${mcpRegistered ? 'registered' : 'not available in this VS Code'})`,
  );

  return {
    get mode() {
      return bridgeHost.state.mode;
    },
    get state() {
      return bridgeHost.state;
    },
    get baseUrl() {
      return bridgeHost.state.baseUrl;
    },
    get port() {
      return bridgeHost.state.port;
    },
    get dataDir() {
      return bridgeHost.state.dataDir;
    },
    get client() {
      return bridgeHost.client;
    },
    activationMs,
    get listeningMs() {
      return listeningMs;
    },
    get statusBarText() {
      return statusBar.text;
    },
    logFile: vscode.Uri.joinPath(context.logUri, `${log.name}.log`).fsPath,
    mcpRegistered,
    views,
    trees,
    resultEditor,
    feed,
    reader,
    mindMaps,
    review: { panels: review.panels, dueStatus: review.dueStatus },
    whenSettled: () => started.then(() => waitSettled(bridgeHost)),
    checkpoint: () => bridgeHost.checkpoint(),
  };
}

/** Closes the server cleanly (checkpoint, lock released, bridge.json removed) before the host exits. */
export async function deactivate(): Promise<void> {
  const h = host;
  host = undefined;
  // The long poll first, so closing the server does not wait for it.
  await changeFeed?.stop();
  changeFeed = undefined;
  await h?.dispose();
}

async function waitSettled(h: BridgeHost): Promise<BridgeState> {
  for (let i = 0; i < 600 && h.state.mode === 'starting'; i++) await new Promise((r) => setTimeout(r, 50));
  return h.state;
}
