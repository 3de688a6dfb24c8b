import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The reader's page: a strict CSP (our script by nonce, our stylesheets, the
 * pdf.js worker from a blob URL, fonts and cmaps fetched from the extension),
 * no inline script or style, assets through asWebviewUri.
 */
export function pdfReaderHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const uri = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...path)).toString();
  const src = webview.cspSource;
  const csp = [
    `default-src 'none'`,
    `img-src ${src} blob: data:`,
    `style-src ${src}`,
    `font-src ${src} data:`,
    `script-src 'nonce-${nonce}'`,
    `worker-src blob:`,
    `connect-src ${src}`,
  ].join('; ');
  // Make card in the webview's context menu: package.json menus "webview/context" with webviewSection == pdfText.
  const menuContext = JSON.stringify({ webviewSection: 'pdfText' }).replace(/"/g, '&quot;');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri('dist', 'webview', 'pdf_viewer.css')}">
<link rel="stylesheet" href="${uri('media', 'pdfReader.css')}">
<title>PDF reader</title>
</head>
<body data-assets="${uri('dist')}" data-worker="${uri('dist', 'webview', 'pdfReader.worker.js')}">
<header class="toolbar">
  <button id="outlineToggle" type="button" class="icon" title="Outline" aria-pressed="false">☰</button>
  <span id="title" class="title">Loading…</span><span id="setTitle" class="set-title"></span>
  <span class="spacer"></span>
  <span class="group"><input id="pageInput" class="page-input" type="number" min="1" value="1" aria-label="Page"><span id="pageCount" class="muted"></span></span>
  <span class="group">
    <button id="zoomOut" type="button" class="icon" title="Zoom out (Ctrl/Cmd -)">−</button>
    <span id="zoomLabel" class="zoom-label">100%</span>
    <button id="zoomIn" type="button" class="icon" title="Zoom in (Ctrl/Cmd +)">+</button>
    <button id="fitWidth" type="button" class="secondary" title="Fit the page width (Ctrl/Cmd 0)">Fit</button>
  </span>
  <span class="group find">
    <input id="findInput" type="search" placeholder="Find in book" aria-label="Find in book">
    <button id="findPrev" type="button" class="icon" title="Previous match (Shift+Enter)">↑</button>
    <button id="findNext" type="button" class="icon" title="Next match (Enter)">↓</button>
    <span id="findCount" class="muted"></span>
  </span>
  <button id="makeCard" type="button" title="Make a card of the selected text (Ctrl+Alt+M)" disabled>Make card</button>
</header>
<main class="reader">
  <nav id="outline" class="outline" aria-label="Outline"><div id="outlineList"></div></nav>
  <div id="viewerContainer" class="viewer-container" data-vscode-context="${menuContext}"><div id="viewer" class="pdfViewer"></div></div>
</main>
<div id="notice" class="notice" hidden></div>
<script nonce="${nonce}" src="${uri('dist', 'webview', 'pdfReader.js')}"></script>
</body>
</html>`;
}
