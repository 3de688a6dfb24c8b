import { crc32 } from 'node:zlib';
import { Bloom, PREFIX_LENGTHS, prefixKey, wordKey } from './bloom';
import { indexTerms } from '../text/searchTerms';

/**
 * One book's text index file (immutable: a bookmd5 names its bytes, so its
 * text never changes). Little-endian:
 *
 *   header  48 bytes: 'SBTX', version, pageCount, totalTokens, termCount,
 *           bloomBytes, bloomProbes, bodyBytes, bloomCrc, bodyCrc, 0, headerCrc
 *   bloom   the book's filter (words and word prefixes), read at startup
 *   body    pageNo[pageCount] pageLen[pageCount] termOff[termCount+1]
 *           postOff[termCount+1] (u32), the terms' UTF-8 bytes sorted bytewise
 *           (padded to 4), then per term its postings as varints
 *           (page-index delta, term frequency)
 *
 * The header, the filter and the body each carry a crc32, so a damaged file
 * is detected and rebuilt, never read into wrong answers. The filter is read
 * without the body, so startup reads a few KB per book.
 */
const MAGIC = 0x58544253; // 'SBTX'
const VERSION = 4; // 2: sparse long prefix keys in the filter; 3: CJK runs as bigrams; 4: the text module's terms (CJK words too)
export const HEADER_BYTES = 48;

export interface BookHeader {
  pageCount: number;
  totalTokens: number;
  termCount: number;
  bloomBytes: number;
  bloomProbes: number;
  bodyBytes: number;
  bloomCrc: number;
  bodyCrc: number;
}

/** A book's body, ready to query: typed arrays over the file's bytes, nothing parsed per term. */
export interface BookBody {
  pageNo: Uint32Array;
  pageLen: Uint32Array;
  termOff: Uint32Array;
  postOff: Uint32Array;
  terms: Buffer;
  postings: Buffer;
  /** Bytes held in memory (for the cache budget). */
  bytes: number;
}

export class CorruptIndexError extends Error {}

const pad4 = (n: number) => (n + 3) & ~3;

/** Builds the file for a book's pages. */
export function encodeBook(pages: ReadonlyArray<{ page: number; text: string }>): Buffer {
  const sorted = [...pages].sort((a, b) => a.page - b.page);
  const pageNo = new Uint32Array(sorted.length);
  const pageLen = new Uint32Array(sorted.length);
  const postings = new Map<string, number[]>(); // term → [pageIdx, tf, pageIdx, tf, …]
  let totalTokens = 0;
  sorted.forEach((p, i) => {
    pageNo[i] = p.page;
    const tokens = indexTerms(p.text ?? '');
    pageLen[i] = tokens.length;
    totalTokens += tokens.length;
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push(i, n);
    }
  });

  const terms = [...postings.keys()].map((t) => ({ t, b: Buffer.from(t, 'utf8') }));
  terms.sort((x, y) => Buffer.compare(x.b, y.b));
  const keys = new Set<string>();
  for (const { t } of terms) {
    keys.add(wordKey(t));
    for (const n of PREFIX_LENGTHS) if (n <= t.length) keys.add(prefixKey(t.slice(0, n)));
  }
  const bloom = Bloom.forKeys(keys, keys.size);

  const termOff = new Uint32Array(terms.length + 1);
  const postOff = new Uint32Array(terms.length + 1);
  const postBytes: number[] = [];
  let termBytes = 0;
  terms.forEach(({ t, b }, i) => {
    termOff[i] = termBytes;
    termBytes += b.length;
    postOff[i] = postBytes.length;
    const list = postings.get(t)!;
    let prev = 0;
    for (let j = 0; j < list.length; j += 2) {
      varint(postBytes, list[j] - prev);
      varint(postBytes, list[j + 1]);
      prev = list[j];
    }
  });
  termOff[terms.length] = termBytes;
  postOff[terms.length] = postBytes.length;

  const body = Buffer.alloc(4 * (2 * sorted.length + 2 * (terms.length + 1)) + pad4(termBytes) + postBytes.length);
  let at = 0;
  for (const arr of [pageNo, pageLen, termOff, postOff]) {
    Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).copy(body, at);
    at += arr.byteLength;
  }
  for (const { b } of terms) at += b.copy(body, at);
  at = pad4(at);
  body.set(postBytes, at);

  const header = Buffer.alloc(HEADER_BYTES);
  [
    MAGIC,
    VERSION,
    sorted.length,
    totalTokens,
    terms.length,
    bloom.bits.length,
    bloom.probes,
    body.length,
    crc32(bloom.bits) >>> 0,
    crc32(body) >>> 0,
    0,
  ].forEach((v, i) => header.writeUInt32LE(v, i * 4));
  header.writeUInt32LE(crc32(header.subarray(0, 44)) >>> 0, 44);
  return Buffer.concat([header, bloom.bits, body]);
}

function varint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
}

export function decodeHeader(b: Buffer): BookHeader {
  if (b.length < HEADER_BYTES || b.readUInt32LE(0) !== MAGIC) throw new CorruptIndexError('not a text index file');
  if (b.readUInt32LE(4) !== VERSION) throw new CorruptIndexError(`text index version ${b.readUInt32LE(4)}`);
  if (crc32(b.subarray(0, 44)) >>> 0 !== b.readUInt32LE(44)) throw new CorruptIndexError('header checksum mismatch');
  const u = (i: number) => b.readUInt32LE(i * 4);
  return {
    pageCount: u(2),
    totalTokens: u(3),
    termCount: u(4),
    bloomBytes: u(5),
    bloomProbes: u(6),
    bodyBytes: u(7),
    bloomCrc: u(8),
    bodyCrc: u(9),
  };
}

export function decodeBloom(h: BookHeader, bytes: Buffer): Bloom {
  if (bytes.length !== h.bloomBytes || crc32(bytes) >>> 0 !== h.bloomCrc)
    throw new CorruptIndexError('filter checksum mismatch');
  return new Bloom(new Uint8Array(bytes), h.bloomProbes);
}

/** The body from its bytes (checked against the header's crc); typed arrays share the buffer when aligned. */
export function decodeBody(h: BookHeader, raw: Buffer): BookBody {
  if (raw.length !== h.bodyBytes || crc32(raw) >>> 0 !== h.bodyCrc)
    throw new CorruptIndexError('body checksum mismatch');
  const b = raw.byteOffset % 4 === 0 ? raw : Buffer.from(raw); // Buffer.from copies into a fresh, aligned buffer
  let at = 0;
  const u32 = (n: number) => {
    const a = new Uint32Array(b.buffer, b.byteOffset + at, n);
    at += n * 4;
    return a;
  };
  const pageNo = u32(h.pageCount);
  const pageLen = u32(h.pageCount);
  const termOff = u32(h.termCount + 1);
  const postOff = u32(h.termCount + 1);
  const terms = b.subarray(at, at + termOff[h.termCount]);
  at = pad4(at + termOff[h.termCount]);
  const postings = b.subarray(at, at + postOff[h.termCount]);
  if (at + postOff[h.termCount] !== b.length) throw new CorruptIndexError('body length mismatch');
  return { pageNo, pageLen, termOff, postOff, terms, postings, bytes: b.length };
}
