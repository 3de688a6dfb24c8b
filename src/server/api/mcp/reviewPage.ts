import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { BridgeError } from '../../errors';

/**
 * The review MCP App's page (ui://study-bridge/review): one HTML document
 * with the page's script and styles inline (src/webviews/mcpReview, bundled
 * by esbuild.mjs into dist/webview/mcpReview.{js,css}). Its own CSP allows
 * exactly those two inline blocks by hash, pictures as data: URLs and no
 * connection at all: everything it shows comes through the host (tool
 * results), so it needs no origin of ours or anyone's.
 */

export const REVIEW_APP_URI = 'ui://study-bridge/review';
/** The ext-apps HTML profile (RESOURCE_MIME_TYPE of @modelcontextprotocol/ext-apps). */
export const MCP_APP_MIME = 'text/html;profile=mcp-app';
/** `_meta.ui` of the resource: no external origin of any kind (the spec's most restrictive declaration). */
export const REVIEW_APP_UI_META = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
};

/** dist/webview/ beside the bundle; from source (tsx), the repository's dist/ as `node esbuild.mjs` builds it. */
function bundleDir(): string | undefined {
  const dirs = [path.join(__dirname, 'webview'), path.resolve(__dirname, '../../../../dist/webview')];
  return dirs.find((d) => existsSync(path.join(d, 'mcpReview.js')));
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

let cached: { key: string; html: string } | undefined;

/** The page's HTML, read once per build of its bundle. */
export function reviewPageHtml(): string {
  const dir = bundleDir();
  if (!dir) {
    throw new BridgeError(
      'REVIEW_APP_UNAVAILABLE',
      503,
      'The review app page is not built (dist/webview/mcpReview.js; `node esbuild.mjs` builds it). study_review_next still answers the card as text and a picture.',
    );
  }
  const js = path.join(dir, 'mcpReview.js');
  const css = path.join(dir, 'mcpReview.css');
  const key = `${dir}:${statSync(js).size}:${statSync(js).mtimeMs}`;
  if (cached?.key === key) return cached.html;
  // A closing tag inside the script would end it early; the source map is not served.
  const script = readFileSync(js, 'utf8')
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
    .replace(/<\/(script)/gi, '<\\/$1');
  const style = existsSync(css)
    ? readFileSync(css, 'utf8')
        .replace(/\/\*# sourceMappingURL=\S+ \*\/\s*$/, '')
        .replace(/<\/(style)/gi, '<\\/$1')
    : '';
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    'img-src data:',
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>Study Bridge review</title>
<style>${style}</style>
</head>
<body>
<main id="app" aria-live="polite"><p class="muted">Waiting for the card…</p></main>
<script>${script}</script>
</body>
</html>
`;
  cached = { key, html };
  return html;
}
