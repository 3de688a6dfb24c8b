import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';

/**
 * A node of a Study Bridge tree. Children load lazily, when the node is
 * expanded; `refresh(node)` on the provider reloads just that subtree.
 */
export interface BridgeNode {
  /** Stable across refreshes, so expansion state survives them. */
  readonly id: string;
  treeItem(): vscode.TreeItem;
  children?(client: BridgeClient): Promise<BridgeNode[]>;
}

/** A leaf that shows a message (load error, nothing here yet…). */
export class MessageNode implements BridgeNode {
  constructor(
    readonly id: string,
    private readonly label: string,
    private readonly icon = 'info',
    private readonly tooltip?: string,
  ) {}
  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon(this.icon);
    item.tooltip = this.tooltip ?? this.label;
    item.contextValue = 'studyBridge.message';
    return item;
  }
}

/** How long the tree must have fetched nothing to count as settled: VS Code asks for children just after a refresh event. */
const QUIET_MS = 100;
/** VS Code's extension host holds a refresh coming within this long of the previous one, then sends them as one. */
const VSCODE_REFRESH_DEBOUNCE_MS = 200;
/** A refresh waits for a quiet tree at most this long (a fetch that hangs must not hold it for good). */
const MAX_REFRESH_WAIT_MS = 2000;

/**
 * One provider per view, over the typed client (the same API agents use).
 * Roots come from `loadRoots`; an empty list shows the view's welcome content.
 */
export abstract class BridgeTreeProvider implements vscode.TreeDataProvider<BridgeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<BridgeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly parents = new WeakMap<BridgeNode, BridgeNode>();
  /** getChildren calls running, and when the last one ended or a refresh was asked (see settled). */
  private loading = 0;
  private lastActivity = 0;
  /** When the last getChildren call ended. */
  private lastFetch = 0;
  /** Refreshes asked while VS Code was still fetching: fired together once it has been quiet (see refresh). */
  private pending: { all: boolean; nodes: Set<BridgeNode>; since: number } | undefined;
  private pendingTimer: ReturnType<typeof setTimeout> | undefined;
  /** The reveal running or last run (see revealAlone). */
  private reveals: Promise<unknown> = Promise.resolve();

  constructor(private readonly getClient: () => BridgeClient | undefined) {}

  protected abstract loadRoots(client: BridgeClient): Promise<BridgeNode[]>;

  /**
   * Reloads the whole tree, or only `node`'s subtree. A refresh landing while VS Code still fetches children
   * (a reveal's, the previous refresh's) makes it register a node twice ("Element with id … is already registered"),
   * and VS Code collapses a node whose children fetch failed: the person's expanded set folded shut after
   * a restore (its own refresh, then the change feed's). So a refresh waits until the tree has fetched
   * nothing for QUIET_MS, and the refreshes asked meanwhile go out as one.
   */
  refresh(node?: BridgeNode): void {
    this.lastActivity = Date.now();
    const pending = (this.pending ??= { all: false, nodes: new Set(), since: Date.now() });
    if (node) pending.nodes.add(node);
    else pending.all = true;
    this.firePending();
  }

  private firePending(): void {
    if (this.pendingTimer || !this.pending) return;
    const quietFor = Date.now() - this.lastFetch;
    if ((this.loading > 0 || quietFor < QUIET_MS) && Date.now() - this.pending.since < MAX_REFRESH_WAIT_MS) {
      this.pendingTimer = setTimeout(
        () => {
          this.pendingTimer = undefined;
          this.firePending();
        },
        this.loading > 0 ? 25 : QUIET_MS - quietFor,
      );
      return;
    }
    const { all, nodes } = this.pending;
    this.pending = undefined;
    this.lastActivity = Date.now() + VSCODE_REFRESH_DEBOUNCE_MS; // settled() also waits out VS Code's hold
    if (all) this.changed.fire(undefined);
    else for (const node of nodes) this.changed.fire(node);
  }

  /**
   * Two reveals at once register the same parents twice (the error above), so reveals queue here. Each
   * starts once the tree is settled and counts as a fetch while it runs, so a refresh waits for its end.
   */
  revealAlone<R>(reveal: () => Promise<R>): Promise<R> {
    const run = this.reveals.then(async () => {
      await this.settled();
      this.loading++;
      try {
        return await reveal();
      } finally {
        this.loading--;
        this.lastActivity = this.lastFetch = Date.now();
      }
    });
    this.reveals = run.catch(() => undefined);
    return run;
  }

  /**
   * Resolves once no getChildren call has run for QUIET_MS (a refresh's fetches have ended), or after
   * `timeoutMs`: a reveal made then does not race VS Code's own fetch (views/treeReveal.ts).
   */
  async settled(timeoutMs = 5000): Promise<void> {
    const t0 = Date.now();
    while (
      Date.now() - t0 < timeoutMs &&
      (this.pending || this.loading > 0 || Date.now() - this.lastActivity < QUIET_MS)
    )
      await new Promise((r) => setTimeout(r, 25));
  }

  getTreeItem(node: BridgeNode): vscode.TreeItem {
    return node.treeItem();
  }

  getParent(node: BridgeNode): BridgeNode | undefined {
    return this.parents.get(node);
  }

  async getChildren(node?: BridgeNode): Promise<BridgeNode[]> {
    const client = this.getClient();
    if (!client) return [];
    this.loading++;
    try {
      const children = node ? ((await node.children?.(client)) ?? []) : await this.loadRoots(client);
      if (node) for (const child of children) this.parents.set(child, node);
      return children;
    } catch (err) {
      if (isRouteMissing(err)) return []; // the route lands with a later issue
      const message = err instanceof Error ? err.message : String(err);
      return [new MessageNode(`${node?.id ?? 'root'}/error`, `Could not load: ${message}`, 'warning', message)];
    } finally {
      this.loading--;
      this.lastActivity = this.lastFetch = Date.now();
    }
  }

  dispose(): void {
    clearTimeout(this.pendingTimer);
    this.changed.dispose();
  }
}

/** 404 NOT_FOUND for the route itself (not a missing resource): the server does not have it yet. */
export function isRouteMissing(err: unknown): boolean {
  const e = err as { status?: number; code?: string };
  return e?.status === 404 && (e.code === 'NOT_FOUND' || e.code === 'ROUTE_NOT_FOUND');
}
