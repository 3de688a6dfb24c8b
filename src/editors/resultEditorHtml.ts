import type * as vscode from 'vscode';
import { webviewPage } from './webviewPage';

/** The result.md preview's page (shell and CSP: webviewPage.ts). */
export function resultEditorHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webviewPage(webview, extensionUri, {
    title: 'result.md preview',
    styles: [['media', 'controls.css'], ['media', 'resultEditor.css']],
    script: ['dist', 'webview', 'resultEditor.js'],
    body: `<header class="bar">
  <div class="heading"><strong>Card preview</strong> <span id="status" class="status">Connecting…</span></div>
  <div class="actions">
    <button id="openAsText" class="secondary" type="button" title="Reopen result.md in the text editor">Open as Text</button>
    <button id="submit" type="button" disabled title="Save result.md and import these cards into the study set">Submit</button>
  </div>
</header>
<section id="message" class="message" hidden></section>
<section id="receipt" class="receipt" hidden></section>
<section id="summary" class="summary" hidden></section>
<section id="problems" class="problems" hidden></section>
<section id="tree" class="tree" aria-label="Card tree as it will import"></section>`,
  });
}
