import { closeSync, openSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Bloom } from './bloom';
import {
  CorruptIndexError,
  HEADER_BYTES,
  decodeBloom,
  decodeBody,
  decodeHeader,
  type BookBody,
  type BookHeader,
} from './indexFormat';

/** What is kept in memory of each indexed book: its header and its filter of words and word prefixes. */
export interface BookFilter {
  header: BookHeader;
  bloom: Bloom;
}

/** A book's index file name; anything else in the folder is a temp file or an orphan. */
export const INDEX_FILE = /^([0-9a-f]{32})\.idx$/;

export const indexFilePath = (dir: string, bookmd5: string): string => join(dir, `${bookmd5}.idx`);

/** The header and filter of an index file (a few KB), without its body. */
export function readFilter(file: string): BookFilter {
  const header = decodeHeader(readAt(file, 0, HEADER_BYTES));
  return { header, bloom: decodeBloom(header, readAt(file, HEADER_BYTES, header.bloomBytes)) };
}

/** The body of an index file whose header is `header`. */
export function readBody(file: string, header: BookHeader): BookBody {
  return decodeBody(header, readAt(file, HEADER_BYTES + header.bloomBytes, header.bodyBytes));
}

/** `length` bytes at `offset`; a short file is damage, not a shorter answer. */
function readAt(file: string, offset: number, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.allocUnsafeSlow(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, b, got, length - got, offset + got);
      if (n === 0) throw new CorruptIndexError('index file is shorter than its header says');
      got += n;
    }
    return b;
  } finally {
    closeSync(fd);
  }
}

export function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
