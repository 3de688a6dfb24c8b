// Builds dist/: the headless CLI, the VS Code extension and worker scripts, plus
// the assets they load at run time (sql.js wasm, pdf.js fonts, OCR data...).
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// --outdir=<dir>: build elsewhere (npm run package stages the VSIX in .cache/vsix/dist).
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';

// ── entries (PDF worker and others add theirs here) ──
const entries = [
  { in: 'src/cli.ts', out: 'cli' },
  { in: 'src/extension.ts', out: 'extension' },
  { in: 'src/server/ground/pdf/extractWorker.ts', out: 'pdfWorker' },
  // The bridge in VS Code: a worker thread of the window (or required on its main thread).
  { in: 'src/server/worker/bridgeWorker.ts', out: 'bridgeWorker' },
  // Its thread's first script when the window keeps a code cache of it (threads/codeCache.ts).
  { in: 'src/server/worker/bridgeBoot.ts', out: 'bridgeBoot' },
  // A large library's checkpoint, built beside the store from library.db and the journal.
  { in: 'src/server/ground/store/checkpointWorker.ts', out: 'checkpointWorker' },
  // A large outline import's parse, stopped when it runs over its budget.
  { in: 'src/server/domain/mindmap/outlineWorker.ts', out: 'outlineWorker' },
  // FSRS's optimizer (fsrs-rs, native), fitting a preset's weights on a thread of its own.
  { in: 'src/server/ground/fsrs/optimizerWorker.ts', out: 'fsrsOptimizer' },
].filter((e) => existsSync(e.in));

// ── assets copied beside the bundles: [from (node_modules-relative or project path), to (dist-relative)] ──
const assets = [
  ['node_modules/sql.js/dist/sql-wasm.wasm', 'sql-wasm.wasm'],
  ['node_modules/pdfjs-dist/standard_fonts', 'pdfjs/standard_fonts'],
  ['node_modules/pdfjs-dist/cmaps', 'pdfjs/cmaps'],
  ['node_modules/pdfjs-dist/wasm', 'pdfjs/wasm'],
  // The PDF reader's page styles (pdf.js viewer components) and the icons they use.
  ['node_modules/pdfjs-dist/legacy/web/pdf_viewer.css', 'webview/pdf_viewer.css'],
  ['node_modules/pdfjs-dist/legacy/web/images', 'webview/images'],
];

/** pdf.js (ESM) uses import.meta.url; in a CJS bundle give it the bundle's own URL. */
const importMetaShim = "const __importMetaUrl = require('url').pathToFileURL(__filename).href;";

const options = {
  entryPoints: entries,
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: production ? false : 'linked',
  minify: production,
  external: [
    'vscode',
    '@napi-rs/canvas',
    '@open-spaced-repetition/binding',
    'tesseract.js',
    '@tesseract.js-data/eng',
    'tsx/cjs/api',
  ],
  // import() of an external (@napi-rs/canvas, CommonJS) becomes require(): a bundle compiled from V8's code
  // cache (server/ground/threads/codeCache.ts) has no dynamic-import callback on Node 20.
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: importMetaShim },
  logLevel: 'warning',
  // sqlite.ts require.resolve()s the wasm only when run from source; the bundle finds it beside itself.
  logOverride: { 'require-resolve-not-external': 'silent' },
};

// ── webview scripts: browser bundles a webview loads through asWebviewUri (dist/webview/<name>.js) ──
const webviews = [
  { in: 'src/webviews/mindMap/main.ts', out: 'webview/mindMap' },
  { in: 'src/webviews/pdfReader/boot.ts', out: 'webview/pdfReaderBoot' },
  { in: 'src/webviews/pdfReader/main.ts', out: 'webview/pdfReader' },
  { in: 'src/webviews/resultEditor/main.ts', out: 'webview/resultEditor' },
  { in: 'src/webviews/review/main.ts', out: 'webview/review' },
  { in: 'src/webviews/deckStats/main.ts', out: 'webview/deckStats' },
  { in: 'src/webviews/deckOptions/main.ts', out: 'webview/deckOptions' },
  // The PDF reader's pdf.js worker: a classic script the webview starts from a blob URL.
  { in: 'node_modules/pdfjs-dist/legacy/build/pdf.worker.mjs', out: 'webview/pdfReader.worker' },
].filter((e) => existsSync(e.in));

const webviewOptions = {
  entryPoints: webviews,
  outdir,
  bundle: true,
  platform: 'browser',
  target: 'chrome120',
  format: 'iife',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
};

// The review MCP App's page: the bridge inlines it (and its .css) into ui://study-bridge/review, so
// every host reads it whole over MCP: always minified (690 KB, not 1.4 MB; the ext-apps SDK is most of it).
const mcpAppOptions = {
  ...webviewOptions,
  entryPoints: [{ in: 'src/webviews/mcpReview/main.ts', out: 'webview/mcpReview' }].filter((e) => existsSync(e.in)),
  sourcemap: false,
  minify: true,
};

mkdirSync(outdir, { recursive: true });
for (const [from, to] of assets) {
  if (!existsSync(from)) continue;
  const dest = join(outdir, to);
  mkdirSync(dirname(dest), { recursive: true });
  cpSync(from, dest, { recursive: true });
}

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  if (webviews.length) await (await esbuild.context(webviewOptions)).watch();
  if (mcpAppOptions.entryPoints.length) await (await esbuild.context(mcpAppOptions)).watch();
} else {
  await Promise.all([
    esbuild.build(options),
    webviews.length ? esbuild.build(webviewOptions) : undefined,
    mcpAppOptions.entryPoints.length ? esbuild.build(mcpAppOptions) : undefined,
  ]);
}
