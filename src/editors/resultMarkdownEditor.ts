import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { BundleReceipt } from '../client/bundlesApi';
import type { PreviewProblem } from './resultPreviewModel';
import { ResultPreviewSession } from './resultPreviewSession';

export const RESULT_EDITOR_VIEW_TYPE = 'studyBridge.resultMarkdown';

export interface ResultEditorDeps {
  extensionUri: vscode.Uri;
  getClient(): BridgeClient | undefined;
  log: vscode.LogOutputChannel;
  onSubmitted(bundleId: string, receipt: BundleReceipt): Promise<void>;
}

/**
 * The result.md editor: a CustomTextEditorProvider over the plain file, so
 * undo, save, diff and git work as for any text file. It shows the card tree as
 * it will import (POST /bundles/{id}/check with the current text), problems in
 * the Problems panel, and a Submit button. "Open result.md" puts the text
 * editor beside it (see bundleCommands.ts).
 */
export class ResultMarkdownEditorProvider implements vscode.CustomTextEditorProvider, vscode.Disposable {
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('studyBridge.result');
  private readonly sessions = new Set<ResultPreviewSession>();
  private readonly opened = new vscode.EventEmitter<ResultPreviewSession>();
  /** Fires when a preview opens (tests and commands wait on it). */
  readonly onDidOpen = this.opened.event;
  private readonly registration: vscode.Disposable;

  constructor(private readonly deps: ResultEditorDeps) {
    this.registration = vscode.window.registerCustomEditorProvider(RESULT_EDITOR_VIEW_TYPE, this, {
      // Re-rendering from the document is cheap; a hidden webview keeps nothing worth its memory.
      webviewOptions: { retainContextWhenHidden: false },
      supportsMultipleEditorsPerDocument: true,
    });
  }

  resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): void {
    const session = new ResultPreviewSession(document, panel, {
      ...this.deps,
      setProblems: (uri, problems) => this.setProblems(uri, problems),
    });
    this.sessions.add(session);
    session.onDidDispose(() => {
      this.sessions.delete(session);
      // The Problems panel follows the preview: no preview of this file left, no entries.
      if (!this.sessionsFor(document.uri).length) this.diagnostics.delete(document.uri);
    });
    this.opened.fire(session);
  }

  /** Open previews of a file (tests read their state; commands re-check them). */
  sessionsFor(uri: vscode.Uri): ResultPreviewSession[] {
    return [...this.sessions].filter((s) => s.document.uri.toString() === uri.toString());
  }

  /** Every open preview checks again (the bridge restarted, a bundle changed state). */
  recheckAll(): void {
    for (const s of this.sessions) s.scheduleCheck();
  }

  /** Diagnostics of a document, as the Problems panel shows them. */
  problemsOf(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.diagnostics.get(uri) ?? [];
  }

  private setProblems(uri: vscode.Uri, problems: PreviewProblem[]): void {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    this.diagnostics.set(
      uri,
      problems.map((p) => {
        const line = Math.max(0, p.line - 1);
        const range = doc && line < doc.lineCount ? doc.lineAt(line).range : new vscode.Range(line, 0, line, 1000);
        const d = new vscode.Diagnostic(
          range,
          p.message,
          p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
        );
        d.source = 'Study Bridge';
        d.code = p.code;
        return d;
      }),
    );
  }

  dispose(): void {
    for (const s of [...this.sessions]) s.dispose();
    this.registration.dispose();
    this.diagnostics.dispose();
    this.opened.dispose();
  }
}
