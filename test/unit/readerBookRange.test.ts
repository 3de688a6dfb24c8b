import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ReaderBookFile } from '../../src/editors/readerBookFile';
import { HostChannel, type WebviewPort } from '../../src/webviews/channel/hostChannel';
import { PageChannel, type MessageSource } from '../../src/webviews/channel/pageChannel';
import { bookTransport } from '../../src/webviews/pdfReader/bookRange';
import {
  READ_RANGE_MAX,
  READER_CHUNK_BYTES,
  readerGuards,
  type ReaderProtocol,
} from '../../src/webviews/pdfReader/protocol';
import { corpusFile } from './pdfCorpus';

// The reader's book by range, without VS Code: the host's file (readerBookFile.ts) answers the page's
// readRange over the real channel (structured-cloned, asynchronous, as VS Code delivers), and the page's
// range transport (bookRange.ts) feeds the real pdf.js.

const BOOK = corpusFile('asymptote.pdf');
const fileUri = { scheme: 'file', fsPath: BOOK };
const notUsed = () => Promise.reject(new Error('a local file is read by range'));

function channels(book: ReaderBookFile) {
  const toPage = new Set<(e: { data: unknown }) => void>();
  let toHost: ((m: unknown) => void) | undefined;
  const later = (f: () => void) => setTimeout(f, 1);
  const webview: WebviewPort = {
    postMessage: async (m: unknown) => (later(() => toPage.forEach((l) => l({ data: structuredClone(m) }))), true),
    onDidReceiveMessage: (l: (m: unknown) => void) => ((toHost = l), { dispose: () => (toHost = undefined) }),
  };
  const source: MessageSource = {
    addEventListener: (_t, l) => toPage.add(l),
    removeEventListener: (_t, l) => toPage.delete(l),
  };
  const host = new HostChannel<ReaderProtocol>(webview, { guards: readerGuards });
  host.handle('readRange', ({ begin, end }) => book.read(begin, end)); // as pdfReaderSession.ts answers it
  const page = new PageChannel<ReaderProtocol>(
    { postMessage: (m) => later(() => toHost?.(structuredClone(m))) },
    source,
  );
  page.ready();
  return { host, page };
}

async function pdfjs() {
  // pdf.js in this thread (no worker file in a test), as src/server/ground/pdf/pdfjsLoader.ts loads it.
  // @ts-expect-error the worker module ships without type declarations
  (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
  return import('pdfjs-dist/legacy/build/pdf.mjs');
}

describe('the reader reads a book by range', () => {
  const whole = readFileSync(BOOK);

  it('the host file: ends on the chunk grid, exact slices, the MD5 of the bytes, and a count of what it sent', async () => {
    const book = await ReaderBookFile.open(fileUri, notUsed);
    try {
      assert.equal(book.length, whole.byteLength);
      const { head, tail } = await book.ends();
      assert.deepEqual(Buffer.from(head), whole.subarray(0, READER_CHUNK_BYTES));
      assert.ok(tail);
      assert.equal(tail.begin % READER_CHUNK_BYTES, 0);
      assert.deepEqual(Buffer.from(tail.data), whole.subarray(tail.begin));
      assert.equal(book.bytesRead, READER_CHUNK_BYTES + whole.byteLength - tail.begin);
      assert.deepEqual(Buffer.from(await book.read(500_000, 500_010)), whole.subarray(500_000, 500_010));
      assert.equal(
        (await book.read(whole.byteLength - 4, whole.byteLength + 100)).byteLength,
        4,
        'clamped to the file',
      );
      assert.equal(await book.md5(), createHash('md5').update(whole).digest('hex'));
    } finally {
      book.dispose();
    }
  });

  it('pdf.js draws the first page from the ends alone, then fetches the ranges a later page needs', async function () {
    this.timeout(60_000);
    const lib = await pdfjs();
    const book = await ReaderBookFile.open(fileUri, notUsed);
    const { host, page } = channels(book);
    const errors: unknown[] = [];
    try {
      const ends = await book.ends();
      const endsBytes = book.bytesRead;
      const transport = bookTransport(lib.PDFDataRangeTransport, page, { length: book.length, ...ends }, (e) =>
        errors.push(e),
      );
      const task = lib.getDocument({
        range: transport,
        rangeChunkSize: READER_CHUNK_BYTES,
        disableAutoFetch: true,
        disableStream: true,
        verbosity: 0,
      });
      const doc = await task.promise;
      assert.equal(doc.numPages, 196);
      await (await doc.getPage(1)).getOperatorList();
      const atFirstPage = book.bytesRead;
      assert.equal(atFirstPage, endsBytes, 'no range asked before the first page: its objects are in the ends');
      assert.ok(atFirstPage < whole.byteLength * 0.7, `${atFirstPage} of ${whole.byteLength} bytes for the first page`);
      const text = await (await doc.getPage(120)).getTextContent();
      assert.ok(text.items.length > 20, 'page 120 has its text');
      assert.ok(book.bytesRead > atFirstPage, 'page 120 needed ranges the ends did not hold');
      assert.deepEqual(errors, []);
      await task.destroy();
    } finally {
      host.dispose();
      page.dispose();
      book.dispose();
    }
  });

  it('the host refuses a range that is not one (negative, empty, larger than the limit): the page hears BAD_REQUEST', async () => {
    const book = await ReaderBookFile.open(fileUri, notUsed);
    const { host, page } = channels(book);
    try {
      for (const params of [
        { begin: -1, end: 10 },
        { begin: 10, end: 10 },
        { begin: 0, end: READ_RANGE_MAX + 1 },
      ]) {
        await assert.rejects(
          page.request('readRange', params),
          (e: { code?: string }) => e.code === 'BAD_REQUEST',
          JSON.stringify(params),
        );
      }
      assert.equal(book.bytesRead, 0, 'nothing was read');
    } finally {
      host.dispose();
      page.dispose();
      book.dispose();
    }
  });
});
