import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import type { TreeNode } from '../client/cardsApi';
import type { BridgeNode } from './bridgeTreeProvider';

/** POST /notes/batch-get takes at most this many cards per call. */
const BATCH_GET_MAX = 200;
/** Contributed theme colours studyBridge.palette0…15 (package.json), one per palette entry. */
const PALETTE_SIZE = 16;

/**
 * One study set's cards, from one GET /study-sets/{id}/tree: children by
 * parent (pre-order keeps sibling order), plus the hashtags batch-get found
 * for the cards shown so far. Valid until the library changes.
 */
export class SetCards {
  private readonly byId = new Map<string, TreeNode>();
  private readonly kids = new Map<string, string[]>();
  private readonly tags = new Map<string, string[]>();

  private constructor(
    readonly topicid: string,
    readonly rootNoteId: string,
  ) {}

  static async load(client: BridgeClient, topicid: string): Promise<SetCards> {
    const tree = await client.cards.tree(topicid);
    const cards = new SetCards(topicid, tree.rootNoteId);
    cards.merge(tree.nodes);
    return cards;
  }

  get(noteid: string): TreeNode | undefined {
    return this.byId.get(noteid);
  }

  hashtags(noteid: string): string[] {
    return this.tags.get(noteid) ?? [];
  }

  /** Children of a card; a sub-map the set's tree left out is read on demand (`?root=`). */
  async children(client: BridgeClient, noteid: string): Promise<TreeNode[]> {
    const node = this.byId.get(noteid);
    if (node && node.childCount > 0 && !this.kids.has(noteid))
      this.merge((await client.cards.tree(this.topicid, noteid)).nodes);
    const list = (this.kids.get(noteid) ?? []).map((id) => this.byId.get(id)!);
    await this.loadHashtags(
      client,
      list.map((n) => n.noteid),
    );
    return list;
  }

  private merge(nodes: TreeNode[]): void {
    for (const n of nodes) {
      if (this.byId.has(n.noteid)) continue;
      this.byId.set(n.noteid, n);
      if (!n.parent) continue;
      const siblings = this.kids.get(n.parent) ?? [];
      siblings.push(n.noteid);
      this.kids.set(n.parent, siblings);
    }
  }

  /** Hashtags of the cards about to be shown: one batch-get per 200 cards not yet read. */
  private async loadHashtags(client: BridgeClient, ids: string[]): Promise<void> {
    const missing = ids.filter((id) => !this.tags.has(id));
    for (let i = 0; i < missing.length; i += BATCH_GET_MAX) {
      const { notes } = await client.cards.batchGet(missing.slice(i, i + BATCH_GET_MAX));
      for (const n of notes) this.tags.set(n.noteid, n.hashtags ?? []);
    }
  }
}

/** The loaded sets' cards; emptied whenever the library changes. */
export class CardCache {
  private readonly sets = new Map<string, Promise<SetCards>>();

  /** The set's cards, loaded once (one GET tree) until `clear()`. */
  load(client: BridgeClient, topicid: string): Promise<SetCards> {
    let cards = this.sets.get(topicid);
    if (!cards) {
      cards = SetCards.load(client, topicid);
      this.sets.set(topicid, cards);
      cards.catch(() => this.sets.delete(topicid));
    }
    return cards;
  }

  clear(): void {
    this.sets.clear();
  }
}

/** A card of a study set's tree. Children come from the set's cached tree. */
export class CardNode implements BridgeNode {
  readonly id: string;
  constructor(
    readonly studySet: StudySet,
    readonly card: TreeNode,
    private readonly cards: SetCards,
  ) {
    this.id = `card/${studySet.topicid}/${card.noteid}`;
  }

  get noteid(): string {
    return this.card.noteid;
  }

  treeItem(): vscode.TreeItem {
    const c = this.card;
    const title = c.displayTitle || c.title.trim() || '(untitled card)'; // an untitled excerpt card shows its first words
    const item = new vscode.TreeItem(
      title,
      c.childCount > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = this.id;
    const color = paletteColor(c.colorIndex);
    item.iconPath = c.isSubMapRoot
      ? new vscode.ThemeIcon('type-hierarchy-sub', color)
      : color
        ? new vscode.ThemeIcon('circle-filled', color)
        : new vscode.ThemeIcon('circle-outline');
    const tags = this.cards.hashtags(c.noteid);
    item.description = [
      c.isSubMapRoot ? 'sub-map' : '',
      c.hasExcerpt && c.page ? `p. ${c.page}` : '',
      ...tags.map((t) => (t.startsWith('#') ? t : `#${t}`)),
    ]
      .filter(Boolean)
      .join(' · ');
    item.tooltip = [
      title,
      c.isSubMapRoot
        ? `sub-map of ${c.childCount} ${c.childCount === 1 ? 'card' : 'cards'}`
        : c.childCount
          ? `${c.childCount} ${c.childCount === 1 ? 'child' : 'children'}`
          : '',
      c.hasExcerpt ? `excerpt from page ${c.page}` : '',
      tags.length ? tags.join(' ') : '',
      c.noteid,
    ]
      .filter(Boolean)
      .join('\n');
    // studyBridge.card.excerpt: a card with a source page (Open Source Page).
    item.contextValue = c.isSubMapRoot
      ? 'studyBridge.card.subMap'
      : c.hasExcerpt && c.page
        ? 'studyBridge.card.excerpt'
        : 'studyBridge.card';
    // A click shows the card (POST /notes/{id}/focus); the twistie still expands.
    item.command = { command: 'studyBridge.focusCard', title: 'Show card', arguments: [this] };
    return item;
  }

  async children(client: BridgeClient): Promise<BridgeNode[]> {
    return (await this.cards.children(client, this.card.noteid)).map((n) => new CardNode(this.studySet, n, this.cards));
  }

  /** The parent card, or undefined when the parent is the set's root card (shown as the set itself). */
  parentCard(): CardNode | undefined {
    const parent = this.card.parent ? this.cards.get(this.card.parent) : undefined;
    return parent && parent.noteid !== this.cards.rootNoteId
      ? new CardNode(this.studySet, parent, this.cards)
      : undefined;
  }
}

/** The card's palette colour as a contributed theme colour; undefined: no colour. */
export function paletteColor(colorIndex: number | null | undefined): vscode.ThemeColor | undefined {
  if (typeof colorIndex !== 'number' || !Number.isInteger(colorIndex) || colorIndex < 0 || colorIndex >= PALETTE_SIZE)
    return undefined;
  return new vscode.ThemeColor(`studyBridge.palette${colorIndex}`);
}
