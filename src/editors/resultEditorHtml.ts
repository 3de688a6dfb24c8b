import type * as vscode from 'vscode';
import { webviewPage } from './webviewPage';
import { RESULT_EDITOR_BODY } from '../webviews/resultEditor/markup';

/** The result.md preview's page (shell and CSP: webviewPage.ts). */
export function resultEditorHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webviewPage(webview, extensionUri, {
    title: 'result.md preview',
    styles: [
      ['media', 'controls.css'],
      ['media', 'resultEditor.css'],
    ],
    script: ['dist', 'webview', 'resultEditor.js'],
    body: RESULT_EDITOR_BODY,
  });
}
