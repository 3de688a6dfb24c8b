import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { BridgeTreeProvider, MessageNode, type BridgeNode } from './bridgeTreeProvider';

export interface StudySetSummary {
  topicid: string;
  title: string;
  noteCount?: number;
  isStudySet?: boolean;
}

interface DocumentSummary {
  bookmd5?: string;
  id?: string;
  title?: string;
  filename?: string;
  sourceState?: string;
  isMain?: boolean;
  main?: boolean;
}

/** Study Sets view: sets at the root; under each, its documents (and, with a later issue, its cards). */
export class StudySetsProvider extends BridgeTreeProvider {
  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    const studySets: StudySetSummary[] = await client.listStudySets();
    return [...studySets]
      .sort((a, b) => a.title.localeCompare(b.title))
      .map((s) => new StudySetNode(s));
  }
}

export class StudySetNode implements BridgeNode {
  readonly id: string;
  constructor(readonly studySet: StudySetSummary) {
    this.id = `studySet/${studySet.topicid}`;
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.studySet.title, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('notebook');
    item.contextValue = 'studyBridge.studySet';
    if (typeof this.studySet.noteCount === 'number') item.description = `${this.studySet.noteCount} ${this.studySet.noteCount === 1 ? 'card' : 'cards'}`;
    item.tooltip = `${this.studySet.title}\n${this.studySet.topicid}`;
    return item;
  }

  async children(): Promise<BridgeNode[]> {
    // Sections load their own children lazily; the card tree section comes with the cards issue.
    return [new DocumentsSection(this.studySet.topicid)];
  }
}

export class DocumentsSection implements BridgeNode {
  readonly id: string;
  constructor(private readonly topicid: string) {
    this.id = `studySet/${topicid}/documents`;
  }

  treeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem('Documents', vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('library');
    item.contextValue = 'studyBridge.documents';
    return item;
  }

  async children(client: BridgeClient): Promise<BridgeNode[]> {
    const body = (await client.request('GET', `/study-sets/${encodeURIComponent(this.topicid)}/documents`)) as {
      documents?: DocumentSummary[];
    };
    const docs = body.documents ?? [];
    if (docs.length === 0) return [new MessageNode(`${this.id}/empty`, 'No documents yet', 'info')];
    return docs.map((d, i) => new DocumentNode(this.id, d, i));
  }
}

class DocumentNode implements BridgeNode {
  readonly id: string;
  constructor(parentId: string, private readonly doc: DocumentSummary, index: number) {
    this.id = `${parentId}/${doc.bookmd5 ?? doc.id ?? index}`;
  }

  treeItem(): vscode.TreeItem {
    const label = this.doc.title ?? this.doc.filename ?? this.doc.bookmd5 ?? 'document';
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const missing = this.doc.sourceState === 'missing_file';
    item.iconPath = new vscode.ThemeIcon(missing ? 'warning' : 'file-pdf');
    const main = this.doc.isMain ?? this.doc.main;
    item.description = [main ? 'main' : '', missing ? 'file missing' : ''].filter(Boolean).join(' · ') || undefined;
    item.contextValue = 'studyBridge.document';
    return item;
  }
}
