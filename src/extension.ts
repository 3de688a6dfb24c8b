// Composition root for VS Code: hosts (or attaches to) the bridge, and wires
// the status bar, log, commands, views and MCP discovery onto it. Everything
// registered goes into context.subscriptions; deactivate closes the server.
import * as vscode from 'vscode';
import { performance } from 'node:perf_hooks';
import { BridgeHost } from './extension/bridgeHost';
import type { BridgeState } from './extension/bridgeState';
import { showRecoveryNotice } from './extension/recoveryNotice';
import { BridgeStatusBar } from './extension/statusBar';
import { registerCommands, UserFacingError } from './extension/commands';
import { registerCardCommands } from './extension/cardCommands';
import { LibraryChangeFeed } from './extension/changeFeed';
import { registerMcpProvider } from './extension/mcpProvider';
import { affectsBridge, readBridgeOptions } from './extension/settings';
import { WorkbenchUi } from './extension/workbenchUi';
import { createSidebar } from './extension/sidebar';
import { registerAgentCommands } from './extension/agentCommands';
import { registerApprovalPrompts } from './extension/approvalPrompts';
import { registerAnnotationCommands } from './extension/annotationCommands';
import { registerAnkiCommands } from './extension/ankiCommands';
import { registerDeckStats } from './extension/deckStatsCommands';
import { openPanels, type Panels, type Wiring } from './extension/panels';
import { studyBridgeApi, type StudyBridgeApi } from './extension/extensionApi';

export type { StudyBridgeApi } from './extension/extensionApi';

let host: BridgeHost | undefined;
let changeFeed: LibraryChangeFeed | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<StudyBridgeApi> {
  const t0 = performance.now();
  const version = String((context.extension.packageJSON as { version?: string }).version ?? '0.0.0');

  const log = vscode.window.createOutputChannel('Study Bridge', { log: true });
  context.subscriptions.push(log);
  const ui = new WorkbenchUi();
  context.subscriptions.push(ui);
  const bridgeHost = hostBridge(context, log, ui);
  const statusBar = new BridgeStatusBar();
  context.subscriptions.push(statusBar);

  const w = wireViews(context, log, ui, bridgeHost);
  const panels = openPanels(w);
  context.subscriptions.push(bridgeHost.onDidChange((state) => followBridge(state, w, statusBar, panels)));
  registerWindowCommands(w);
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

  return studyBridgeApi({
    ...panels,
    bridgeHost,
    statusBar,
    sidebar: w.sidebar,
    feed: w.feed,
    logFile: vscode.Uri.joinPath(context.logUri, `${log.name}.log`).fsPath,
    mcpRegistered,
    activationMs,
    listeningMs: () => listeningMs,
    started,
  });
}

/** The bridge this window hosts or attaches to, with each request written to the log. */
function hostBridge(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, ui: WorkbenchUi): BridgeHost {
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
  return bridgeHost;
}

/** The sidebar's views and the change feed they follow, and what every other part is wired with. */
function wireViews(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  ui: WorkbenchUi,
  bridgeHost: BridgeHost,
): Wiring {
  const getClient = () => bridgeHost.client;
  const requireClient = () => {
    const client = getClient();
    if (!client) throw new UserFacingError(`The bridge is ${bridgeHost.state.mode}. Restart it from the status bar.`);
    return client;
  };
  const sidebar = createSidebar(getClient, ui, (m) => log.info(m));
  const refreshViews = () => sidebar.refresh();
  context.subscriptions.push(...sidebar.disposables);

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
  return { context, log, ui, bridgeHost, getClient, requireClient, sidebar, refreshViews, feed };
}

const recoveryChecked = new Set<string>();

/** The status bar, the views, the feed and the open panels follow the bridge in use. */
function followBridge(state: BridgeState, w: Wiring, statusBar: BridgeStatusBar, panels: Panels): void {
  statusBar.update(state);
  void vscode.commands.executeCommand('setContext', 'studyBridge.state', state.mode);
  if (state.mode !== 'starting') w.refreshViews();
  // Follow the bridge in use; no poll may hold a closing server open.
  // Only the window that opened the library (and so ran its recovery) reports what recovery found.
  if (state.mode === 'hosting' && state.instanceNonce && !recoveryChecked.has(state.instanceNonce)) {
    recoveryChecked.add(state.instanceNonce);
    const client = w.getClient();
    if (client)
      void showRecoveryNotice(client, w.log).catch((err: unknown) =>
        w.log.warn(`recovery report: ${err instanceof Error ? err.message : String(err)}`),
      );
  }
  if (state.mode === 'hosting' || state.mode === 'attached') {
    void w.feed.restart();
    panels.resultEditor.recheckAll();
    panels.mindMaps.redrawAll();
  } else void w.feed.stop();
}

/** The commands of the bridge, agents, annotations, Anki, deck statistics and cards; a settings change restarts the bridge. */
function registerWindowCommands(w: Wiring): void {
  const { log, requireClient, refreshViews, sidebar, ui } = w;
  const restartBridge = async () => {
    await w.feed.stop();
    await w.bridgeHost.restart();
  };
  w.context.subscriptions.push(
    ...registerCommands({
      host: w.bridgeHost,
      log,
      refreshViews,
      restartBridge,
      revealStudySets: async () => {
        await vscode.commands.executeCommand('studyBridge.studySets.focus');
      },
    }),
    ...registerAgentCommands({ log, requireClient, agents: sidebar.views.agents }),
    ...registerAnnotationCommands({ log, requireClient, refreshViews }),
    ...registerAnkiCommands({ log, requireClient, refreshViews }),
    ...registerDeckStats({
      extensionUri: w.context.extensionUri,
      log,
      getClient: w.getClient,
      requireClient,
      onLibraryChange: w.feed.onDidChange,
      onBridgeChange: w.bridgeHost.onDidChange,
    }),
    ...registerCardCommands({
      log,
      requireClient,
      refreshViews,
      revealCard: sidebar.revealCard,
      closeStudySet: (topicid) => ui.close(topicid),
      showStudySet: (set) => sidebar.showStudySet(set),
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsBridge(e)) void restartBridge();
    }),
  );
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
