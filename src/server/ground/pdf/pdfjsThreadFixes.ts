import { gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';

/**
 * Undoes costs pdf.js puts on the thread that loads it (one of our PDF
 * worker threads), measured on asymptote.pdf (bench/pdfText.bench.ts and
 * per-page timings): each is worth 10–35 % of text extraction.
 */

/**
 * The legacy build's core-js polyfills replace `Array.prototype.push`,
 * `JSON.stringify` and `JSON.parse` on Node 20 (for edge cases pdf.js never
 * hits: lengths past 2^32, `JSON.rawJSON`) with JavaScript versions; they
 * cost ~25 % of text extraction and slow every JSON call in the thread 5×.
 * Call before loading pdf.js; `restore()` after puts the natives back. The
 * additions it makes (Promise.withResolvers, …) stay.
 */
export function keepNatives(): { restore(): void } {
  const push = Array.prototype.push;
  const { stringify, parse } = JSON;
  return {
    restore() {
      Array.prototype.push = push;
      JSON.stringify = stringify;
      JSON.parse = parse;
    },
  };
}

/** pdf.js's StreamKind.ENQUEUE (src/shared/message_handler.js). */
const STREAM_ENQUEUE = 4;

interface PortMessage {
  stream?: number;
  chunk?: { items?: unknown };
}

let sharing = false;

const isPrimitive = (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'function');

/**
 * pdf.js runs in this thread with a fake worker whose LoopbackPort
 * structured-clones every message; for text content that copy of every item
 * is ~10 % of getTextContent. The items of a sent text-content chunk are
 * never touched again (pdf.js starts new `items`/`styles` objects on the
 * chunk), so a shallow copy hands them over; so are messages of primitives
 * only. Everything else is still cloned.
 */
export function shareTextChunks(): void {
  if (sharing) return;
  sharing = true;
  const clone = globalThis.structuredClone;
  globalThis.structuredClone = ((value: unknown, options?: Parameters<typeof structuredClone>[1]) => {
    const msg = value as PortMessage | null;
    if (msg && typeof msg === 'object' && !options?.transfer?.length) {
      if (msg.stream === STREAM_ENQUEUE && Array.isArray(msg.chunk?.items)) {
        // pdf.js reassigns the chunk's `items`/`styles` right after sending: keep the sent ones.
        return { ...msg, chunk: { ...msg.chunk } };
      }
      // Stream control messages (pull, close, …) hold only primitives: a shallow copy is a clone.
      if (Object.getPrototypeOf(msg) === Object.prototype && Object.values(msg).every(isPrimitive)) return { ...msg };
    }
    return clone(value, options);
  }) as typeof structuredClone;
}

/** Outputs up to this size inflate in zlib's usual 16 KB chunks; past it, in chunks of their own mapping. */
const SMALL_OUTPUT = 8 * 1024 * 1024;
/** Just over glibc's largest mmap threshold (32 MB on 64-bit): a chunk this size is always its own mapping. */
const BIG_CHUNK = 33 * 1024 * 1024;

/**
 * Inflates within `max` bytes. zlib's 16 KB output chunks pile up in the thread's malloc arena, and glibc kept them
 * after the worker ended: a 1 MB bomb stopped at the 256 MB budget left +256 MB in the bridge for good. So a stream
 * that inflates past SMALL_OUTPUT is inflated again in BIG_CHUNKs, which go back whole when freed (a stopped one
 * overshoots the budget by at most one chunk). Smaller streams, nearly all, keep zlib's speed.
 */
export function boundedInflate(inflate: Inflate, input: Uint8Array, max: number): Buffer {
  try {
    return inflate(input, { maxOutputLength: Math.min(max, SMALL_OUTPUT) });
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE' || max <= SMALL_OUTPUT) throw e;
  }
  return inflate(input, { maxOutputLength: max, chunkSize: BIG_CHUNK });
}

type Inflate = (b: Uint8Array, o: ZlibOptions) => Buffer;
const inflaters: Record<string, Inflate> = {
  deflate: inflateSync,
  'deflate-raw': inflateRawSync,
  gzip: gunzipSync,
};

/**
 * pdf.js inflates every Flate stream (page content, fonts) through the web
 * `DecompressionStream`, which Node builds from a zlib stream wrapped in web
 * streams: that wrapping costs a third of getTextContent on a book. Here the
 * same zlib inflates in one synchronous call (we are off the event loop in a
 * worker); errors surface the same way (the readable throws, pdf.js falls
 * back to its own inflater). Only the shapes pdf.js and zip.js use are
 * provided: a writer (`ready`, `write`, `close`) and a readable that is
 * async-iterable and has `getReader`; other formats go to Node's class.
 *
 * A stream that would inflate past `maxOutputBytes` is a bomb: zlib stops
 * there (nothing bigger is ever held) and `tooLarge` is called, which must
 * not return normally — pdf.js would otherwise retry with its own inflater
 * and grow a buffer to the stream's full size.
 */
export function syncDecompression(limits: { maxOutputBytes: number; tooLarge: (bytes: number) => never }): void {
  const Native = globalThis.DecompressionStream;
  if (!Native || (Native as { sync?: boolean }).sync) return;
  // Called with `new`: the object returned is the instance.
  function SyncDecompressionStream(format: string): object {
    const inflate = inflaters[format];
    if (!inflate) return new Native(format as ConstructorParameters<typeof DecompressionStream>[0]);
    const chunks: Uint8Array[] = [];
    let closed!: () => void;
    const written = new Promise<void>((resolve) => (closed = resolve));
    const writer = {
      ready: Promise.resolve(),
      write: async (chunk: Uint8Array) => void chunks.push(chunk),
      close: async () => closed(),
    };
    const readable = {
      async *[Symbol.asyncIterator]() {
        await written;
        // A damaged stream throws and pdf.js retries with its own inflater;
        // the error is dropped, so it gets no stack (with source maps on, as
        // under tsx, building one costs ~10 ms).
        const limit = Error.stackTraceLimit;
        Error.stackTraceLimit = 0;
        let out: Buffer;
        try {
          out = boundedInflate(inflate, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), limits.maxOutputBytes);
        } catch (e) {
          if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') limits.tooLarge(limits.maxOutputBytes);
          throw e;
        } finally {
          Error.stackTraceLimit = limit;
        }
        yield new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      },
      // The global is replaced for the whole thread: other users of DecompressionStream there (zip.js, for one)
      // read through a reader, as from a web ReadableStream.
      getReader() {
        const it = readable[Symbol.asyncIterator]();
        return {
          read: async () => {
            const r = await it.next();
            return r.done ? { done: true as const, value: undefined } : { done: false as const, value: r.value };
          },
          cancel: async () => void (await it.return?.(undefined)),
          releaseLock: () => undefined,
        };
      },
    };
    return { readable, writable: { getWriter: () => writer } };
  }
  SyncDecompressionStream.sync = true;
  globalThis.DecompressionStream = SyncDecompressionStream as unknown as typeof DecompressionStream;
}

/** pdf.js's RenderingIntentFlag.ANNOTATIONS_DISABLE (src/shared/util.js). */
const ANNOTATIONS_DISABLE = 0x40;

type WorkerPage = { _parsedAnnotations: Promise<unknown[]> };
type GetOperatorList = (this: WorkerPage, args: { intent: number }) => Promise<unknown>;

/**
 * pdf.js's worker-side Page.getOperatorList awaits the page's parsed
 * annotations even when told to leave them out (AnnotationMode.DISABLE, as
 * the glyph pass and the image check ask): a page of 50,000 highlights cost
 * 14 s and +260 MB for annotations it then drops. Page is not exported, so
 * its prototype is caught from the first page pdf.js makes (a one-time
 * setter for `pageDict`, which Page's constructor assigns), and such a call
 * sees no annotations. getOperatorList reads them synchronously, before its
 * first await, so the empty list is in place only during that call.
 */
export function skipDisabledAnnotations(): void {
  const trap = 'pageDict';
  Object.defineProperty(Object.prototype, trap, {
    configurable: true,
    set(this: object, value: unknown) {
      Object.defineProperty(this, trap, { value, writable: true, enumerable: true, configurable: true });
      const proto = Object.getPrototypeOf(this) as Record<string, unknown>;
      const parsed = Object.getOwnPropertyDescriptor(proto, '_parsedAnnotations');
      if (!parsed?.get || typeof proto.getOperatorList !== 'function') return;
      delete (Object.prototype as Record<string, unknown>)[trap];
      const original = proto.getOperatorList as GetOperatorList;
      proto.getOperatorList = function (this: WorkerPage, args: { intent: number }) {
        if (!(args.intent & ANNOTATIONS_DISABLE) || Object.hasOwn(this, '_parsedAnnotations'))
          return original.call(this, args);
        Object.defineProperty(this, '_parsedAnnotations', { value: Promise.resolve([]), configurable: true });
        try {
          return original.call(this, args);
        } finally {
          delete (this as Partial<WorkerPage>)._parsedAnnotations;
        }
      };
    },
  });
}
