import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The webview's page: a strict CSP (nothing but our script, by nonce, and our
 * stylesheet), no inline script or style, assets through asWebviewUri.
 */
export function resultEditorHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', name)).toString();
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `img-src ${webview.cspSource}`, `font-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('resultEditor.css')}">
<title>result.md preview</title>
</head>
<body>
<header class="bar">
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
<section id="tree" class="tree" aria-label="Card tree as it will import"></section>
<script nonce="${nonce}" src="${asset('resultEditor.js')}"></script>
</body>
</html>`;
}
