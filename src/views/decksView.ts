import * as vscode from 'vscode';
import type { BridgeClient, Deck } from '../client/bridgeClient';
import { BridgeTreeProvider, type BridgeNode } from './bridgeTreeProvider';

/** Review Decks view (GET /decks). Cards under a deck come with the decks issue. */
export class DecksProvider extends BridgeTreeProvider {
  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    return (await client.listDecks()).map((d) => new DeckNode(d));
  }
}

class DeckNode implements BridgeNode {
  readonly id: string;
  constructor(private readonly deck: Deck) {
    this.id = `deck/${deck.deckId}`;
  }
  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.deck.title, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('layers');
    item.description = `${this.deck.cardCount} ${this.deck.cardCount === 1 ? 'card' : 'cards'}`;
    item.tooltip = `${this.deck.title}\n${this.deck.deckId}\nlast modified ${this.deck.lastModifiedAt}`;
    item.contextValue = 'studyBridge.deck';
    return item;
  }
}
