import type * as vscode from 'vscode';
import { webviewAsset, webviewPage } from './webviewPage';
import { openingStage, readerBody } from '../webviews/pdfReader/markup';
import type { PageTone } from '../webviews/pdfReader/protocol';
import type { OpeningImage } from './readerOpeningImage';

/** What the first HTML shows before any script: the page tone, and the cached picture of the opening page (if any). */
export interface ReaderFirstPaint {
  tone: PageTone;
  image?: OpeningImage;
  /** pdf.js's scale value the reader opens at (the picture is laid out for it). */
  scale: string | null;
}

/**
 * The reader's page (shell and CSP: webviewPage.ts), plus what pdf.js needs:
 * its worker from a blob URL, page images as blobs, fonts and cmaps fetched
 * from the extension.
 */
export function pdfReaderHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  first: ReaderFirstPaint = { tone: 'auto', scale: null },
): string {
  const uri = (...path: string[]) => webviewAsset(webview, extensionUri, ...path);
  // Make card in the webview's context menu: package.json menus "webview/context" with webviewSection == pdfText.
  const menuContext = JSON.stringify({ webviewSection: 'pdfText' }).replace(/"/g, '&quot;');
  const img = first.image;
  const opening = img
    ? openingStage({ ...img, scale: first.scale, src: `data:image/webp;base64,${img.webp.toString('base64')}` })
    : '';
  return webviewPage(webview, extensionUri, {
    title: 'PDF reader',
    // pdf.js's viewer styles (161 KB) are not needed for the first paint: boot.ts links them (not render-blocking).
    styles: [['media', 'pdfReader.css']],
    // A small first script; it adds the big one (data-main) once the opening picture has painted.
    script: ['dist', 'webview', 'pdfReaderBoot.js'],
    bodyAttributes: `data-assets="${uri('dist')}" data-main="${uri('dist', 'webview', 'pdfReader.js')}" data-viewer-css="${uri('dist', 'webview', 'pdf_viewer.css')}" data-worker="${uri('dist', 'webview', 'pdfReader.worker.js')}" data-tone="${first.tone}"`,
    extraCsp: {
      'img-src': ['blob:', 'data:'],
      'font-src': ['data:'],
      'worker-src': ['blob:'],
      'connect-src': [webview.cspSource],
    },
    // The pdf.js worker's script is fetched while the page's own script loads (main.ts fetches the same URL).
    body: `<link rel="preload" as="fetch" crossorigin="anonymous" href="${uri('dist', 'webview', 'pdfReader.worker.js')}">\n${readerBody(menuContext, opening)}`,
  });
}
