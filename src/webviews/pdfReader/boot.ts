/// <reference lib="dom" />
// The reader page's first script. It is small so that its task ends at once: the page (and the opening picture
// of its first HTML) paints before the big script, pdf.js and main.ts, is parsed and run; on a reopen that script
// arrived quickly and its first task held VS Code's frame hidden for 260–370 ms. This script opens the channel,
// watches the picture, starts pdf.js's worker, and adds main.ts's script once the picture has painted (at once
// without one). Bundled by esbuild.mjs into dist/webview/pdfReaderBoot.js.
import { PageChannel } from '../channel/pageChannel';
import type { OpenPhases, ReaderProtocol } from './protocol';
import { OpeningImage } from './openingImage';
import { handBoot } from './bootHandoff';

const started = performance.now();
const phases: OpenPhases = {};
const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce ?? '';
const host = new PageChannel<ReaderProtocol>();
const opening = new OpeningImage(started, (m) => host.notify('firstImage', m));

/**
 * A webview asset, asked again when the request fails: VS Code's webview resource loader sometimes drops one on
 * a fresh webview (on 1.139 the worker script's fetch failed with "Failed to fetch" and the book never opened).
 */
async function fetchAsset(url: string, tries = 3): Promise<Blob> {
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await fetch(url);
      if (r.ok) return await r.blob();
      throw new Error(`${url.split('/').pop()}: HTTP ${r.status}`);
    } catch (err) {
      if (attempt >= tries) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
// The worker must run inside the webview: its script is fetched and started from a blob URL (CSP worker-src blob:).
// Started here, it compiles pdf.js's worker code on its own thread while this page loads the rest.
const workerPort = fetchAsset(document.body.dataset.worker ?? '')
  .then((b) => new Worker(URL.createObjectURL(new Blob([b], { type: 'text/javascript' }))))
  .finally(() => (phases.worker ??= Math.round(performance.now() - started)));

// Linked by script, the stylesheet does not hold the first paint; first among the stylesheets, as its rules lose ties.
const viewerStyles = new Promise<void>((resolve) => {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = document.body.dataset.viewerCss ?? '';
  link.onload = link.onerror = () => resolve();
  document.head.insertBefore(link, document.head.querySelector('link[rel="stylesheet"]'));
});

handBoot({ started, phases, host, opening, workerPort, viewerStyles });

void opening.painted.then(() => {
  const main = document.createElement('script');
  main.nonce = nonce;
  main.src = document.body.dataset.main ?? '';
  document.body.append(main);
});
