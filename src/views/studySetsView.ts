import * as vscode from 'vscode';
import type { BridgeClient, StudySet, StudySetDocument } from '../client/bridgeClient';
import { BridgeTreeProvider, MessageNode, type BridgeNode } from './bridgeTreeProvider';

/** Study Sets view: sets at the root; under each, its documents (and, with a later issue, its cards). */
export class StudySetsProvider extends BridgeTreeProvider {
  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    const studySets = await client.listStudySets();
    return [...studySets]
      .sort((a, b) => a.title.localeCompare(b.title))
      .map((s) => new StudySetNode(s));
  }
}

export class StudySetNode implements BridgeNode {
  readonly id: string;
  constructor(readonly studySet: StudySet) {
    this.id = `studySet/${studySet.topicid}`;
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.studySet.title, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('notebook');
    item.contextValue = 'studyBridge.studySet';
    item.description = `${this.studySet.noteCount} ${this.studySet.noteCount === 1 ? 'card' : 'cards'}`;
    item.tooltip = `${this.studySet.title}\n${this.studySet.topicid}`;
    return item;
  }

  async children(): Promise<BridgeNode[]> {
    // Sections load their own children lazily; the card tree section comes with the cards issue.
    return [new DocumentsSection(this.studySet)];
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
  constructor(parentId: string, readonly studySet: StudySet, readonly doc: StudySetDocument) {
    this.id = `${parentId}/${doc.bookmd5}`;
  }

  treeItem(): vscode.TreeItem {
    const label = this.doc.filename;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const missing = this.doc.sourceState === 'missing_file';
    item.iconPath = new vscode.ThemeIcon(missing ? 'warning' : 'file-pdf');
    item.description = [this.doc.isMain ? 'main' : '', `${this.doc.pageCount} pages`, missing ? 'file missing' : ''].filter(Boolean).join(' · ');
    item.tooltip = `${this.doc.folder ? `${this.doc.folder}/` : ''}${this.doc.filename}\nbookmd5 ${this.doc.bookmd5}`;
    item.contextValue = 'studyBridge.document';
    return item;
  }
}
