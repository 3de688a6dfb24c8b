import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { BridgeTreeProvider, type BridgeNode } from './bridgeTreeProvider';

interface BundleSummary {
  bundleId?: string;
  id?: string;
  state?: string;
  progress?: number;
  version?: number;
}

/** Bundles view (GET /bundles). Files and the result.md editor come with the bundles issue. */
export class BundlesProvider extends BridgeTreeProvider {
  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    const body = (await client.request('GET', '/bundles')) as { bundles?: BundleSummary[] };
    return (body.bundles ?? []).map((b, i) => new BundleNode(b, i));
  }
}

class BundleNode implements BridgeNode {
  readonly id: string;
  constructor(private readonly bundle: BundleSummary, index: number) {
    this.id = `bundle/${bundle.bundleId ?? bundle.id ?? index}`;
  }
  treeItem(): vscode.TreeItem {
    const label = this.bundle.bundleId ?? this.bundle.id ?? 'bundle';
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('package');
    item.description =
      this.bundle.state === 'preparing' && typeof this.bundle.progress === 'number'
        ? `preparing ${Math.round(this.bundle.progress * 100)}%`
        : this.bundle.state;
    item.contextValue = `studyBridge.bundle.${this.bundle.state ?? 'unknown'}`;
    return item;
  }
}
