import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { AgentToken } from '../client/tokensApi';
import { BridgeTreeProvider, type BridgeNode } from './bridgeTreeProvider';

/** Connected Agents view (GET /tokens, with the owner token): each agent's own token, its scope and last use. */
export class AgentsProvider extends BridgeTreeProvider {
  /** The rows last shown, for tests and commands. */
  tokens: AgentToken[] = [];

  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    this.tokens = await client.tokens.list();
    const now = Date.now();
    return this.tokens.map((t) => new AgentTokenNode(t, now));
  }
}

export class AgentTokenNode implements BridgeNode {
  readonly id: string;
  constructor(
    readonly token: AgentToken,
    private readonly now: number,
  ) {
    this.id = `agent/${token.tokenId}`;
  }
  treeItem(): vscode.TreeItem {
    const t = this.token;
    const item = new vscode.TreeItem(t.name, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon(t.scope === 'read' ? 'eye' : 'edit');
    const used = t.lastUsedAt ? `used ${ago(Date.parse(t.lastUsedAt), this.now)}` : 'never used';
    item.description = `${t.scope} · ${used}`;
    item.tooltip = [
      t.name,
      t.scope === 'read' ? 'read: reads and dry-runs only' : 'write: reads and changes the library',
      `created ${t.createdAt}`,
      t.lastUsedAt ? `last used ${t.lastUsedAt}` : 'never used',
      t.tokenId,
    ].join('\n');
    item.contextValue = 'studyBridge.agentToken';
    return item;
  }
}

/** "just now", "5 min ago", "3 h ago", "2 days ago": a glance, not a timestamp (the tooltip has that). */
export function ago(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  const days = Math.floor(s / 86_400);
  return `${days} ${days === 1 ? 'day' : 'days'} ago`;
}
