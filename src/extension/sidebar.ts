import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { WorkbenchUi } from './workbenchUi';

/** What an agent (or a click) asked the window to open. */
type OpenRequest = Parameters<Parameters<WorkbenchUi['onDidOpen']>[0]>[0];
import { AgentsProvider } from '../views/agentsView';
import type { BridgeNode } from '../views/bridgeTreeProvider';
import { BundlesProvider } from '../views/bundlesView';
import { CardRevealer } from '../views/cardReveal';
import { revealSettled } from '../views/treeReveal';
import { CardNode } from '../views/cardTree';
import { DecksProvider } from '../views/decksView';
import { DocumentNode, DocumentsSection, StudySetNode, StudySetsProvider } from '../views/studySetsView';

/** How long a set an agent opened is selected again after refreshes (the writes around an open refresh the view). */
const HOLD_MS = 5000;

/** The four views of the Study Bridge sidebar, their tree views, and selecting a card in them. */
export interface Sidebar {
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
  refresh(): void;
  /** Selects a card in the Study Sets view, held through the refreshes that follow (views/cardReveal.ts). */
  revealCard: (studySet: { topicid: string; title: string }, noteid: string) => Promise<void>;
  /** Opens a set as a click on it does: the open one (GET /context), selected and expanded in the Study Sets view. */
  showStudySet(studySet: { topicid: string; title: string }): Promise<void>;
  /** The card selected in the Study Sets view, when it belongs to `topicid`. */
  selectedCard(topicid: string): string | undefined;
  readonly disposables: vscode.Disposable[];
}

/** The four views and their tree views. */
function createViews(getClient: () => BridgeClient | undefined) {
  const views = {
    studySets: new StudySetsProvider(getClient),
    decks: new DecksProvider(getClient),
    bundles: new BundlesProvider(getClient),
    // The agent tokens, read with the owner token this window holds.
    agents: new AgentsProvider(getClient),
  };
  const trees = {
    studySets: vscode.window.createTreeView('studyBridge.studySets', {
      treeDataProvider: views.studySets,
      showCollapseAll: true,
    }),
    decks: vscode.window.createTreeView('studyBridge.decks', { treeDataProvider: views.decks }),
    bundles: vscode.window.createTreeView('studyBridge.bundles', { treeDataProvider: views.bundles }),
    agents: vscode.window.createTreeView('studyBridge.agents', { treeDataProvider: views.agents }),
  };
  return { views, trees };
}

/**
 * What an agent opened, shown here: a focused card (a click here, or POST /notes/{id}/focus) is selected in
 * the tree; a set (POST /ui-state/apply, locate navigate) is selected, and the answer is how long to hold it.
 */
function showAgentOpen(
  req: OpenRequest,
  selected: BridgeNode | undefined,
  revealCard: Sidebar['revealCard'],
  revealSet: (topicid: string, opts: { expand: boolean; forAgent?: boolean }) => Promise<void>,
): { topicid: string; until: number } | undefined {
  if (req.noteid && req.topicid) {
    if (selected instanceof CardNode && selected.noteid === req.noteid) return undefined;
    void revealCard({ topicid: req.topicid, title: req.title ?? '' }, req.noteid).catch(() => undefined);
    vscode.window.setStatusBarMessage('Study Bridge: an agent focused a card', 5000);
    return undefined;
  }
  let hold: { topicid: string; until: number } | undefined;
  if (req.topicid && !req.isDeck && selected?.id !== `studySet/${req.topicid}`) {
    hold = { topicid: req.topicid, until: Date.now() + HOLD_MS };
    void revealSet(req.topicid, { expand: false, forAgent: true }).catch(() => undefined);
  }
  vscode.window.setStatusBarMessage(
    `Study Bridge: an agent opened ${req.bookmd5 ? `a document${req.page ? ` at page ${req.page}` : ''}` : (req.title ?? 'a study set')}`,
    5000,
  );
  return hold;
}

/**
 * Creates the sidebar's views over the client and ties them to the window's
 * UI state: what the person selects is what GET /context reports as open, and
 * a card an agent focuses is selected.
 */
export function createSidebar(
  getClient: () => BridgeClient | undefined,
  ui: WorkbenchUi,
  log: (message: string) => void,
): Sidebar {
  const { views, trees } = createViews(getClient);
  const revealer = new CardRevealer(trees.studySets, views.studySets, getClient, log);
  const revealCard = async (studySet: { topicid: string; title: string }, noteid: string) => {
    await revealer.reveal(studySet, noteid);
  };
  /** The set node an agent's open selected: its selection event must not replace what the agent opened (its document). */
  let selectedForAgent: string | undefined;
  /** A set an agent opened, selected again after each refresh for a few seconds (a refresh in flight drops a reveal). */
  let held: { topicid: string; until: number } | undefined;
  /** Selects (and, on a click, expands) a set in the Study Sets view; `forAgent`: its selection event is not the person's. */
  const revealSet = async (topicid: string, opts: { expand: boolean; forAgent?: boolean }) => {
    const setNode = async () =>
      getClient()
        ? (await views.studySets.getChildren()).find((n) => n instanceof StudySetNode && n.studySet.topicid === topicid)
        : undefined;
    const node = await setNode();
    if (!node) return;
    if (opts.forAgent) selectedForAgent = node.id;
    await revealSettled(trees.studySets, views.studySets, setNode, { select: true, focus: false, expand: opts.expand });
  };
  /** The person opens a set: it is the open one (also when already selected: no selection event then), selected and expanded. */
  const showStudySet = async (studySet: { topicid: string; title: string }) => {
    selectedForAgent = held = undefined;
    ui.select(studySet);
    await revealSet(studySet.topicid, { expand: true });
  };
  const disposables: vscode.Disposable[] = [
    revealer,
    ...Object.values(views),
    ...Object.values(trees),
    trees.studySets.onDidChangeSelection((e) => {
      const node = e.selection[0];
      if (node && node.id === selectedForAgent) return;
      selectedForAgent = held = undefined; // the person chose something else
      if (node instanceof StudySetNode || node instanceof DocumentsSection || node instanceof CardNode)
        ui.select(node.studySet);
      else if (node instanceof DocumentNode) ui.select({ ...node.studySet, bookmd5: node.doc.bookmd5 });
    }),
    // A click on a set (the item's command), also on the set already selected: it is the open one again.
    vscode.commands.registerCommand('studyBridge.openStudySet', async (node?: StudySetNode) => {
      if (node instanceof StudySetNode) await showStudySet(node.studySet).catch(() => undefined);
    }),
    ui.onDidOpen((req) => {
      const hold = showAgentOpen(req, trees.studySets.selection[0], revealCard, revealSet);
      if (hold) held = hold;
    }),
    views.studySets.onDidChangeTreeData(() => {
      const h = held;
      if (h && Date.now() < h.until)
        setTimeout(() => void revealSet(h.topicid, { expand: false, forAgent: true }).catch(() => undefined), 100);
    }),
    // Last use moves without a library write: re-read when the view comes into sight.
    trees.agents.onDidChangeVisibility((e) => e.visible && views.agents.refresh()),
  ];
  return {
    views,
    trees,
    refresh: () => {
      for (const v of Object.values(views)) v.refresh();
    },
    revealCard,
    showStudySet,
    selectedCard: (topicid) => {
      const node = trees.studySets.selection[0];
      return node instanceof CardNode && node.studySet.topicid === topicid ? node.noteid : undefined;
    },
    disposables,
  };
}
