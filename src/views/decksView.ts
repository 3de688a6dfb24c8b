import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { BridgeTreeProvider, type BridgeNode } from './bridgeTreeProvider';

interface DeckSummary {
  deckId: string;
  title: string;
  cardCount?: number;
}

/** Review Decks view (GET /decks). Cards under a deck come with the decks issue. */
export class DecksProvider extends BridgeTreeProvider {
  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    const body = (await client.request('GET', '/decks')) as { decks?: DeckSummary[] };
    return (body.decks ?? []).map((d) => new DeckNode(d));
  }
}

class DeckNode implements BridgeNode {
  readonly id: string;
  constructor(private readonly deck: DeckSummary) {
    this.id = `deck/${deck.deckId}`;
  }
  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.deck.title, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('layers');
    if (typeof this.deck.cardCount === 'number') item.description = `${this.deck.cardCount} ${this.deck.cardCount === 1 ? 'card' : 'cards'}`;
    item.contextValue = 'studyBridge.deck';
    return item;
  }
}
