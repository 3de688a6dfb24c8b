import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The one page shell of every Study Bridge webview (result.md preview, PDF
 * reader, mind map, review): a strict CSP (our scripts by nonce, our
 * stylesheets, nothing inline), assets through asWebviewUri. A webview adds
 * only the CSP sources it really needs (the reader: a blob worker, data fonts).
 */
export interface WebviewPageSpec {
  title: string;
  /** Stylesheets, as paths below the extension root, e.g. ['media', 'mindMap.css']. */
  styles: string[][];
  /** The page's script, as a path below the extension root. */
  script: string[];
  /** The markup inside <body>, before the script. */
  body: string;
  /** Extra attributes of <body> (already escaped). */
  bodyAttributes?: string;
  /** Extra sources per CSP directive, e.g. { 'worker-src': ['blob:'] }. */
  extraCsp?: Record<string, string[]>;
}

/** Focus rings, reduced motion and high-contrast borders: linked last by every page, so its rules win ties. */
const A11Y_STYLES = ['media', 'a11y.css'];

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A URI the webview may load, for a path below the extension root. */
export const webviewAsset = (webview: vscode.Webview, extensionUri: vscode.Uri, ...path: string[]) =>
  webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...path)).toString();

/** The folders a page may load from: our bundled scripts and media. */
export const pageRoots = (extensionUri: vscode.Uri) => [
  vscode.Uri.joinPath(extensionUri, 'dist', 'webview'),
  vscode.Uri.joinPath(extensionUri, 'media'),
];

/** A panel for one of our pages, kept alive while hidden (its state is the host's; redrawing costs a fetch). */
export const openPagePanel = (viewType: string, title: string, extensionUri: vscode.Uri) =>
  vscode.window.createWebviewPanel(viewType, title, vscode.ViewColumn.Active, {
    enableScripts: true,
    retainContextWhenHidden: true,
    localResourceRoots: pageRoots(extensionUri),
  });

export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, spec: WebviewPageSpec): string {
  const nonce = randomBytes(16).toString('base64');
  const src = webview.cspSource;
  const directives: Record<string, string[]> = {
    'default-src': [`'none'`],
    'style-src': [src],
    'img-src': [src],
    'font-src': [src],
    'script-src': [`'nonce-${nonce}'`],
  };
  for (const [name, sources] of Object.entries(spec.extraCsp ?? {}))
    directives[name] = [...(directives[name] ?? []), ...sources];
  const csp = Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
  const asset = (path: string[]) => webviewAsset(webview, extensionUri, ...path);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${[...spec.styles, A11Y_STYLES].map((s) => `<link rel="stylesheet" href="${asset(s)}">`).join('\n')}
<title>${escapeHtml(spec.title)}</title>
</head>
<body${spec.bodyAttributes ? ` ${spec.bodyAttributes}` : ''}>
${spec.body}
<script nonce="${nonce}" src="${asset(spec.script)}"></script>
</body>
</html>`;
}
