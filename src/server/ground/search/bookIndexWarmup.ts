import type { BookTextIndex } from './bookTextIndex';

/** Bytes of book bodies read ahead at start (~190 books of 300 pages). */
export const WARMUP_BYTES = 32 * 1024 * 1024;

/**
 * Reads the newest ready books' index bodies into memory after the bridge
 * starts, one book per turn of the event loop (a request never waits behind
 * more than one read), until `maxBytes` are held. The first search after a
 * start then reads no file: over 100 books of 300 pages that is 15 MB read
 * and checksummed, most of a cold query's time. Stops when `signal` aborts.
 */
export function warmBookIndex(
  index: Pick<BookTextIndex, 'preload'>,
  newestFirst: readonly string[],
  signal: AbortSignal,
  maxBytes = WARMUP_BYTES,
): Promise<number> {
  return new Promise((resolve) => {
    let at = 0;
    const step = () => {
      if (signal.aborted || at >= newestFirst.length || !index.preload(newestFirst[at], maxBytes)) return resolve(at);
      at++;
      setImmediate(step);
    };
    setImmediate(step);
  });
}
