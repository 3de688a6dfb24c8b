import type * as vscode from 'vscode';
import { webviewAsset, webviewPage } from './webviewPage';

/**
 * The reader's page (shell and CSP: webviewPage.ts), plus what pdf.js needs:
 * its worker from a blob URL, page images as blobs, fonts and cmaps fetched
 * from the extension.
 */
export function pdfReaderHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const uri = (...path: string[]) => webviewAsset(webview, extensionUri, ...path);
  // Make card in the webview's context menu: package.json menus "webview/context" with webviewSection == pdfText.
  const menuContext = JSON.stringify({ webviewSection: 'pdfText' }).replace(/"/g, '&quot;');
  return webviewPage(webview, extensionUri, {
    title: 'PDF reader',
    styles: [
      ['dist', 'webview', 'pdf_viewer.css'],
      ['media', 'pdfReader.css'],
    ],
    script: ['dist', 'webview', 'pdfReader.js'],
    bodyAttributes: `data-assets="${uri('dist')}" data-worker="${uri('dist', 'webview', 'pdfReader.worker.js')}"`,
    extraCsp: { 'img-src': ['blob:', 'data:'], 'font-src': ['data:'], 'worker-src': ['blob:'], 'connect-src': [webview.cspSource] },
    body: `<header class="toolbar">
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
  <button id="pageTone" type="button" class="secondary">◐ Auto</button>
  <button id="makeCard" type="button" title="Make a card of the selected text (Ctrl+Alt+M)" disabled>Make card</button>
</header>
<main class="reader">
  <nav id="outline" class="outline" aria-label="Outline"><div id="outlineList"></div></nav>
  <div id="viewerContainer" class="viewer-container" data-vscode-context="${menuContext}"><div id="viewer" class="pdfViewer"></div></div>
</main>
<div id="notice" class="notice" hidden></div>`,
  });
}
