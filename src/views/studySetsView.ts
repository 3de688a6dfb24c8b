import * as vscode from 'vscode';
import type { BridgeClient, StudySet, StudySetDocument } from '../client/bridgeClient';
import { BridgeTreeProvider, MessageNode, isRouteMissing, type BridgeNode } from './bridgeTreeProvider';
import { CardCache, CardNode } from './cardTree';

/** Study Sets view: sets at the root; under each, its documents and its card tree. */
export class StudySetsProvider extends BridgeTreeProvider {
  /** Each expanded set's tree, read once until the library changes. */
  private readonly cards = new CardCache();

  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    const studySets = await client.listStudySets();
    return [...studySets].sort((a, b) => a.title.localeCompare(b.title)).map((s) => new StudySetNode(s, this.cards));
  }

  /** A refresh of the whole view drops the cached trees: the next expansion reads them again. */
  override refresh(node?: BridgeNode): void {
    if (!node) this.cards.clear();
    super.refresh(node);
  }

  /** Cards know their parents from the set's tree, so `reveal` works for cards never expanded. */
  override getParent(node: BridgeNode): BridgeNode | undefined {
    if (node instanceof CardNode) return node.parentCard() ?? new StudySetNode(node.studySet, this.cards);
    return super.getParent(node);
  }

  /** The node of a card (for reveal), reading the set's tree if needed. */
  async cardNode(client: BridgeClient, studySet: StudySet, noteid: string): Promise<CardNode | undefined> {
    const cards = await this.cards.load(client, studySet.topicid);
    const card = cards.get(noteid);
    return card && noteid !== cards.rootNoteId ? new CardNode(studySet, card, cards) : undefined;
  }
}

export class StudySetNode implements BridgeNode {
  readonly id: string;
  constructor(
    readonly studySet: StudySet,
    private readonly cards: CardCache,
  ) {
    this.id = `studySet/${studySet.topicid}`;
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.studySet.title, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('notebook');
    item.contextValue = 'studyBridge.studySet';
    item.description = `${this.studySet.noteCount} ${this.studySet.noteCount === 1 ? 'card' : 'cards'}`;
    item.tooltip = `${this.studySet.title}\n${this.studySet.topicid}`;
    // Every click opens the set, also on the set already selected (selection events fire only on a change).
    // With a command the label no longer toggles the twistie: the command expands the set instead.
    item.command = { command: 'studyBridge.openStudySet', title: 'Open study set', arguments: [this] };
    return item;
  }

  /** The Documents section, then the root card's children (the set stands for its root card). */
  async children(client: BridgeClient): Promise<BridgeNode[]> {
    const documents = new DocumentsSection(this.studySet);
    try {
      const cards = await this.cards.load(client, this.studySet.topicid);
      const top = await cards.children(client, cards.rootNoteId);
      return [documents, ...top.map((n) => new CardNode(this.studySet, n, cards))];
    } catch (err) {
      if (isRouteMissing(err)) return [documents]; // a bridge without card routes (attached to an older one)
      const message = err instanceof Error ? err.message : String(err);
      return [
        documents,
        new MessageNode(`${this.id}/cards-error`, `Could not load the cards: ${message}`, 'warning', message),
      ];
    }
  }
}

export class DocumentsSection implements BridgeNode {
  readonly id: string;
  constructor(readonly studySet: StudySet) {
    this.id = `studySet/${studySet.topicid}/documents`;
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem('Documents', vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('library');
    item.contextValue = 'studyBridge.documents';
    return item;
  }

  async children(client: BridgeClient): Promise<BridgeNode[]> {
    const docs = await client.studySetDocuments(this.studySet.topicid);
    if (docs.length === 0) return [new MessageNode(`${this.id}/empty`, 'No documents yet', 'info')];
    return docs.map((d) => new DocumentNode(this.id, this.studySet, d));
  }
}

export class DocumentNode implements BridgeNode {
  readonly id: string;
  constructor(
    parentId: string,
    readonly studySet: StudySet,
    readonly doc: StudySetDocument,
  ) {
    this.id = `${parentId}/${doc.bookmd5}`;
  }

  treeItem(): vscode.TreeItem {
    const label = this.doc.filename;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const missing = this.doc.sourceState === 'missing_file';
    item.iconPath = new vscode.ThemeIcon(missing ? 'warning' : 'file-pdf');
    item.description = [this.doc.isMain ? 'main' : '', `${this.doc.pageCount} pages`, missing ? 'file missing' : '']
      .filter(Boolean)
      .join(' · ');
    item.tooltip = `${this.doc.folder ? `${this.doc.folder}/` : ''}${this.doc.filename}\nbookmd5 ${this.doc.bookmd5}`;
    item.contextValue = 'studyBridge.document';
    // A click reads the book (the PDF reader).
    if (!missing) item.command = { command: 'studyBridge.openInReader', title: 'Open in Reader', arguments: [this] };
    return item;
  }
}
