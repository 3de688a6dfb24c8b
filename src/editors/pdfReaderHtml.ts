import type * as vscode from 'vscode';
import { webviewAsset, webviewPage } from './webviewPage';
import { readerBody } from '../webviews/pdfReader/markup';

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
    // The pdf.js worker's script is fetched while the page's own script loads (main.ts fetches the same URL).
    body: `<link rel="preload" as="fetch" crossorigin="anonymous" href="${uri('dist', 'webview', 'pdfReader.worker.js')}">\n${readerBody(menuContext)}`,
  });
}
