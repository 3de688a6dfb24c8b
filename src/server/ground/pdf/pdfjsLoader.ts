import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { keepNatives, shareTextChunks, skipDisabledAnnotations, syncDecompression } from './pdfjsThreadFixes';
import { budgetExceeded, workerBudget } from './extractionBudget';
import { provideCanvasGlobals } from './pdfjsGlobals';
import { MAX_REBUILD_BYTES, watchRebuilds } from './crossReference';
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs' with { 'resolution-mode': 'import' };

/** The pdf.js module type (legacy build, the one that runs on Node 20). */
export type PdfJs = typeof PdfJsModule;
export type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

let loaded: Promise<PdfJs> | undefined;

/**
 * Loads pdf.js once per thread. The worker module is imported and exposed as
 * `globalThis.pdfjsWorker`, so pdf.js runs in this thread (we are already off
 * the event loop inside our own worker) and needs no separate worker file —
 * which also makes it work from the esbuild CJS bundle. See
 * pdfjsThreadFixes.ts for what loading it costs the thread and how we undo it.
 */
export function loadPdfJs(): Promise<PdfJs> {
  loaded ??= (async () => {
    // Before pdf.js loads: its module code constructs a DOMMatrix, which the native canvas may not provide here.
    provideCanvasGlobals();
    const natives = keepNatives();
    skipDisabledAnnotations();
    // @ts-expect-error the worker module ships without type declarations
    const worker: unknown = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    natives.restore();
    shareTextChunks();
    syncDecompression({
      maxOutputBytes: workerBudget().streamBytes,
      tooLarge: (bytes) =>
        budgetExceeded(`a compressed stream inflates to more than ${Math.round(bytes / 1048576)} MB`),
    });
    return pdfjs;
  })();
  return loaded;
}

let assetDir: string | undefined;

/**
 * Directory that holds pdf.js's `standard_fonts/`, `cmaps/` and `wasm/`:
 * `dist/pdfjs/` beside the bundle, or the pdfjs-dist package under tsx.
 */
export function pdfJsAssetDir(): string {
  if (assetDir) return assetDir;
  const candidates = [path.join(__dirname, 'pdfjs')];
  try {
    candidates.push(path.dirname(require.resolve('pdfjs-dist/package.json')));
  } catch {
    /* bundled without node_modules */
  }
  candidates.push(path.resolve(__dirname, '../../../../node_modules/pdfjs-dist'));
  assetDir = candidates.find((d) => existsSync(path.join(d, 'standard_fonts'))) ?? candidates[0];
  return assetDir;
}

/**
 * Opens a PDF from bytes. pdf.js transfers what it gets, so the buffer is
 * copied unless `owned` (read for pdf.js alone: a large file is not held twice).
 */
export async function openPdf(bytes: Uint8Array, owned = false): Promise<PdfDocument> {
  const pdfjs = await loadPdfJs();
  const dir = pdfJsAssetDir();
  watchRebuilds(largestOpening, budgetExceeded);
  const size = bytes.byteLength;
  const large = size > MAX_REBUILD_BYTES;
  if (large) opening.push(size);
  const task = pdfjs.getDocument({
    data: owned ? bytes : new Uint8Array(bytes),
    // pdf.js insists on a trailing "/" (not path.sep: "C:\x\cmaps\" is refused); Windows reads "C:\x\cmaps/a" fine.
    standardFontDataUrl: path.join(dir, 'standard_fonts') + '/',
    cMapUrl: path.join(dir, 'cmaps') + '/',
    cMapPacked: true,
    wasmUrl: path.join(dir, 'wasm') + '/',
    useSystemFonts: false,
    // A large file's warnings are raised so watchRebuilds sees the rebuild coming (and prints none of them).
    verbosity: large ? pdfjs.VerbosityLevel.WARNINGS : pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    return await task.promise;
  } finally {
    if (large) opening.splice(opening.indexOf(size), 1);
  }
}

/** Sizes of the PDFs over MAX_REBUILD_BYTES this thread is opening now. */
const opening: number[] = [];
const largestOpening = () => Math.max(0, ...opening);

export async function closePdf(doc: PdfDocument): Promise<void> {
  await doc.loadingTask.destroy();
}
