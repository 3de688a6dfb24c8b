import { Module } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BridgeError } from '../../errors';

/** The native canvas (Skia): what draws card pictures, page images and the pages OCR reads. */
export type CanvasModule = typeof import('@napi-rs/canvas');

export const CANVAS_MODULE = '@napi-rs/canvas';

/**
 * `STUDY_BRIDGE_NO_CANVAS=1` makes the canvas unloadable, to test the bridge
 * as it runs where the native module does not load (no binary for the
 * platform, a system library missing). Every require of the module in the
 * thread then fails to resolve, pdf.js's own included, so the failure is a
 * real one and goes through the same catch. Read here only, before the first
 * load in each thread; worker threads and child processes inherit it.
 */
export const NO_CANVAS_ENV = 'STUDY_BRIDGE_NO_CANVAS';

let unloadable = false;

function honourNoCanvas(): void {
  if (unloadable || process.env[NO_CANVAS_ENV] !== '1') return;
  unloadable = true;
  const loader = Module as unknown as {
    _resolveFilename: (this: unknown, request: string, ...rest: unknown[]) => string;
  };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request: string, ...rest: unknown[]) {
    if (request === CANVAS_MODULE || request.startsWith(`${CANVAS_MODULE}/`)) {
      const e = new Error(`Cannot find module '${request}' (${NO_CANVAS_ENV}=1)`);
      throw Object.assign(e, { code: 'MODULE_NOT_FOUND' });
    }
    return resolve.call(this, request, ...rest);
  };
}

let loaded: CanvasModule | undefined;
/** Why the canvas did not load in this thread (its first line), once it was tried. */
let failure: string | undefined;

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0];

/** The native canvas, or 503 RENDERER_UNAVAILABLE naming the platform, the module and why it did not load. */
export function nativeCanvas(): CanvasModule {
  if (loaded) return loaded;
  if (failure === undefined) {
    honourNoCanvas();
    try {
      // require, not import(): a bundle compiled from V8's code cache has no dynamic-import callback on Node 20.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require(CANVAS_MODULE) as CanvasModule;
      return loaded;
    } catch (e) {
      failure = firstLine(e);
    }
  }
  throw rendererUnavailable(failure);
}

/** The canvas when it loads in this thread, else undefined (for pdf.js's globals: text needs no canvas). */
export function canvasIfLoadable(): CanvasModule | undefined {
  try {
    return nativeCanvas();
  } catch {
    return undefined;
  }
}

const LOAD_ERROR_START = 'did not load (';
const LOAD_ERROR_END = '). PDF text';

export const rendererMessage = (why: string) =>
  `Pictures cannot be drawn on ${process.platform}-${process.arch}: the native canvas module ${CANVAS_MODULE} ${LOAD_ERROR_START}${why}${LOAD_ERROR_END}, ` +
  'search, bundles, locate and annotations work; card pictures, page images, occlusion crops and OCR of scanned pages answer 503 RENDERER_UNAVAILABLE.';

/** The load error a rendererMessage names (a PDF worker's 503 reaches this thread as its message). */
export const loadErrorOf = (message: string) => {
  const start = message.indexOf(LOAD_ERROR_START);
  const end = message.lastIndexOf(LOAD_ERROR_END);
  return start >= 0 && end > start ? message.slice(start + LOAD_ERROR_START.length, end) : message;
};

export const rendererUnavailable = (why: string) =>
  new BridgeError('RENDERER_UNAVAILABLE', 503, rendererMessage(why), {
    platform: `${process.platform}-${process.arch}`,
    module: CANVAS_MODULE,
    loadError: why,
  });

let probe: Promise<string | undefined> | undefined;

/**
 * Whether the canvas loads here: undefined, or why not. Tried once per
 * process in a short-lived thread, as loading the module costs 0.5–0.7 s of
 * CPU that the event loop must not wait on (the PDF workers load it anyway).
 */
export function probeCanvas(): Promise<string | undefined> {
  probe ??= (async () => {
    if (loaded) return undefined;
    if (failure !== undefined) return failure;
    honourNoCanvas();
    let file: string;
    try {
      file = require.resolve(CANVAS_MODULE);
    } catch (e) {
      return (failure = firstLine(e));
    }
    const thread = new Worker(`require(${JSON.stringify(file)})`, { eval: true, stdout: true, stderr: true });
    return new Promise<string | undefined>((resolve) => {
      thread.once('error', (e) => resolve((failure = firstLine(e))));
      thread.once('exit', () => resolve(undefined));
    });
  })();
  return probe;
}

/** 503 RENDERER_UNAVAILABLE before a render is sent to a PDF worker, without loading the canvas on this thread. */
export async function assertRenderer(): Promise<void> {
  const why = await probeCanvas();
  if (why !== undefined) throw rendererUnavailable(why);
}
