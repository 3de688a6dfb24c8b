/// <reference lib="dom" />
// pdf.js reads the book through a PDFDataRangeTransport fed by the host: the
// page never holds the whole file, only the chunks pdf.js asked for (with
// disableAutoFetch it asks for what the pages in view need).
import type { PageChannel } from '../channel/pageChannel';
import type { BookBytes, ReaderProtocol } from './protocol';
/** A range the host has not answered in this long is reported (a stalled page would otherwise wait silently). */
const RANGE_TIMEOUT_MS = 60_000;

/** The ranges read over the channel so far: how many, their bytes, and their round trips (the suite prints them). */
export interface RangeStats {
  requests: number;
  bytes: number;
  totalMs: number;
  maxMs: number;
}
export const rangeStats: RangeStats = { requests: 0, bytes: 0, totalMs: 0, maxMs: 0 };

type RangeTransportClass = new (
  length: number,
  initialData: Uint8Array | null,
) => {
  requestDataRange(begin: number, end: number): void;
  onDataRange(begin: number, chunk: Uint8Array): void;
};

/**
 * A range transport over the reader's channel. `tail`, sent with `open`,
 * answers pdf.js's first request (the trailer at the end of the file)
 * without a round trip; every other range is the host's `readRange`.
 */
export function bookTransport<T extends RangeTransportClass>(
  Transport: T,
  host: PageChannel<ReaderProtocol>,
  book: { length: number; head: ArrayBuffer; tail: BookBytes | null },
  onError: (err: unknown) => void,
): InstanceType<T> {
  const transport = new Transport(book.length, bytesOf(book.head)) as InstanceType<T>;
  const tail = book.tail && { begin: book.tail.begin, bytes: bytesOf(book.tail.data) };
  transport.requestDataRange = (begin: number, end: number) => {
    if (tail && begin >= tail.begin && end <= tail.begin + tail.bytes.byteLength) {
      const chunk = tail.bytes.subarray(begin - tail.begin, end - tail.begin);
      // pdf.js expects the answer after the request returns.
      queueMicrotask(() => transport.onDataRange(begin, chunk));
      return;
    }
    const asked = performance.now();
    host.request('readRange', { begin, end }, { timeoutMs: RANGE_TIMEOUT_MS }).then(
      (data) => {
        const ms = performance.now() - asked;
        rangeStats.requests++;
        rangeStats.bytes += end - begin;
        rangeStats.totalMs += ms;
        rangeStats.maxMs = Math.max(rangeStats.maxMs, ms);
        transport.onDataRange(begin, bytesOf(data));
      },
      (err: unknown) => onError(err),
    );
  };
  return transport;
}

/** Bytes whatever shape the transfer left them in (an ArrayBuffer, a typed array). */
function bytesOf(data: unknown): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new Error(`a range of the book arrived as ${Object.prototype.toString.call(data)}`);
}
