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

  constructor(private readonly getClient: () => BridgeClient | undefined) {}

  protected abstract loadRoots(client: BridgeClient): Promise<BridgeNode[]>;

  /** Reloads the whole tree, or only `node`'s subtree. */
  refresh(node?: BridgeNode): void {
    this.lastActivity = Date.now();
    this.changed.fire(node);
  }

  /**
   * Resolves once no getChildren call has run for QUIET_MS (a refresh's fetches have ended), or after
   * `timeoutMs`: a reveal made then does not race VS Code's own fetch (views/treeReveal.ts).
   */
  async settled(timeoutMs = 5000): Promise<void> {
    const t0 = Date.now();
    while (Date.now() - t0 < timeoutMs && (this.loading > 0 || Date.now() - this.lastActivity < QUIET_MS)) await new Promise((r) => setTimeout(r, 25));
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
      this.lastActivity = Date.now();
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** 404 NOT_FOUND for the route itself (not a missing resource): the server does not have it yet. */
export function isRouteMissing(err: unknown): boolean {
  const e = err as { status?: number; code?: string };
  return e?.status === 404 && (e.code === 'NOT_FOUND' || e.code === 'ROUTE_NOT_FOUND');
}
