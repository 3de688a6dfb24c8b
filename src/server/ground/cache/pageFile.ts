import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { OutlineSegment } from '../pdf/pdfTypes';

/**
 * On-disk format of a document's page cache (one compacted `pages.pc`, or
 * the segments written while it is extracted; both the same format):
 *
 *   header 16 B   'SBPC' | u32 version | u32 count | u32 crc32(table)
 *   table  40 B × count, sorted by page:
 *                 u32 page | u32 ocr | f64 width | f64 height | u32 offset | u32 length | u32 crc32(payload) | u32 0
 *   payloads      deflateRaw( u32 textLen | u32 itemsLen | u32 blocksLen | text | items | blocks ), UTF-8
 *
 * Every page carries its own checksum, so a read of 60 pages is one pread of
 * their contiguous span plus 60 small inflates, and a flipped byte anywhere
 * is detected (never parsed into garbage). A file whose payloads do not end
 * exactly at its size (truncated or padded) is refused at table load.
 */

const MAGIC = 0x43504253; // 'SBPC' little-endian
/**
 * 2: items of turned (/Rotate) and right-to-left runs carry boxes in their run's frame (`rot`); a version-1 file holds
 * the upright boxes of before, so it is read as a miss and the pages are extracted again.
 * 3: a vertical font's column is a run down the page (turned, its glyphs' own advances), where version 2 held it as a
 * line across the page; layout blocks of turned runs stand on the page, where version 2 left them in the runs' frame.
 */
const VERSION = 3;
export const HEADER_BYTES = 16;
export const ENTRY_BYTES = 40;

/** A page as the cache holds it: items stay packed bytes until someone needs them. */
export interface CachedPage {
  page: number;
  text: string;
  /** storedPageCodec's packed items (UTF-8 JSON). */
  items: Uint8Array;
  /** Layout blocks as JSON when an older build stored them; else null (derived on demand). */
  blocks: string | null;
  width: number;
  height: number;
  ocr: number;
}

/** Where one page lives in a file. */
export interface PageEntry {
  page: number;
  ocr: number;
  width: number;
  height: number;
  offset: number;
  length: number;
  crc: number;
}

/** A page ready to be written: its payload already compressed. */
export interface PackedPage {
  entry: Omit<PageEntry, 'offset'>;
  payload: Uint8Array;
}

export class CacheUnreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CacheUnreadable';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Level 1: ingestion speed matters more than the last few per cent of size. */
export function packPage(p: Omit<CachedPage, 'items'> & { items: Uint8Array }): PackedPage {
  const text = encoder.encode(p.text);
  const blocks = p.blocks ? encoder.encode(p.blocks) : new Uint8Array(0);
  const raw = Buffer.allocUnsafe(12 + text.length + p.items.length + blocks.length);
  raw.writeUInt32LE(text.length, 0);
  raw.writeUInt32LE(p.items.length, 4);
  raw.writeUInt32LE(blocks.length, 8);
  raw.set(text, 12);
  raw.set(p.items, 12 + text.length);
  raw.set(blocks, 12 + text.length + p.items.length);
  const payload = deflateRawSync(raw, { level: 1 });
  return {
    entry: { page: p.page, ocr: p.ocr, width: p.width, height: p.height, length: payload.length, crc: crc32(payload) },
    payload,
  };
}

export function unpackPage(entry: PageEntry, payload: Uint8Array): CachedPage {
  if (payload.length !== entry.length || crc32(payload) !== entry.crc)
    throw new CacheUnreadable(`page ${entry.page}: checksum mismatch`);
  let raw: Buffer;
  try {
    raw = inflateRawSync(payload);
  } catch (e) {
    throw new CacheUnreadable(`page ${entry.page}: ${(e as Error).message}`);
  }
  const tl = raw.readUInt32LE(0);
  const il = raw.readUInt32LE(4);
  const bl = raw.readUInt32LE(8);
  if (12 + tl + il + bl !== raw.length) throw new CacheUnreadable(`page ${entry.page}: bad lengths`);
  return {
    page: entry.page,
    text: decoder.decode(raw.subarray(12, 12 + tl)),
    items: raw.subarray(12 + tl, 12 + tl + il),
    blocks: bl ? decoder.decode(raw.subarray(12 + tl + il)) : null,
    width: entry.width,
    height: entry.height,
    ocr: entry.ocr,
  };
}

/** The whole file for these pages (duplicates: the last one wins). */
export function buildPagesFile(pages: PackedPage[]): Buffer {
  const byPage = new Map<number, PackedPage>();
  for (const p of pages) byPage.set(p.entry.page, p);
  const sorted = [...byPage.values()].sort((a, b) => a.entry.page - b.entry.page);
  const dataStart = HEADER_BYTES + ENTRY_BYTES * sorted.length;
  const total = sorted.reduce((n, p) => n + p.payload.length, dataStart);
  const buf = Buffer.allocUnsafe(total);
  let off = dataStart;
  sorted.forEach((p, i) => {
    const at = HEADER_BYTES + i * ENTRY_BYTES;
    const e = p.entry;
    buf.writeUInt32LE(e.page, at);
    buf.writeUInt32LE(e.ocr, at + 4);
    buf.writeDoubleLE(e.width, at + 8);
    buf.writeDoubleLE(e.height, at + 16);
    buf.writeUInt32LE(off, at + 24);
    buf.writeUInt32LE(e.length, at + 28);
    buf.writeUInt32LE(e.crc, at + 32);
    buf.writeUInt32LE(0, at + 36);
    buf.set(p.payload, off);
    off += p.payload.length;
  });
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(VERSION, 4);
  buf.writeUInt32LE(sorted.length, 8);
  buf.writeUInt32LE(crc32(buf.subarray(HEADER_BYTES, dataStart)), 12);
  return buf;
}

/** Page count announced by a header, or a CacheUnreadable. */
export function headerCount(header: Uint8Array, fileSize: number): number {
  const b = Buffer.from(header.buffer, header.byteOffset, header.byteLength);
  if (b.length < HEADER_BYTES || b.readUInt32LE(0) !== MAGIC || b.readUInt32LE(4) !== VERSION)
    throw new CacheUnreadable('not a page cache file');
  const count = b.readUInt32LE(8);
  if (HEADER_BYTES + count * ENTRY_BYTES > fileSize) throw new CacheUnreadable('truncated table');
  return count;
}

/** The table of a file (header + table bytes), checked against its checksum and the file size. */
export function parseTable(head: Uint8Array, fileSize: number): PageEntry[] {
  const count = headerCount(head, fileSize);
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const dataStart = HEADER_BYTES + count * ENTRY_BYTES;
  if (b.length < dataStart) throw new CacheUnreadable('truncated table');
  if (crc32(b.subarray(HEADER_BYTES, dataStart)) !== b.readUInt32LE(12))
    throw new CacheUnreadable('table checksum mismatch');
  const entries: PageEntry[] = new Array<PageEntry>(count);
  let end = dataStart;
  for (let i = 0; i < count; i++) {
    const at = HEADER_BYTES + i * ENTRY_BYTES;
    const e: PageEntry = {
      page: b.readUInt32LE(at),
      ocr: b.readUInt32LE(at + 4),
      width: b.readDoubleLE(at + 8),
      height: b.readDoubleLE(at + 16),
      offset: b.readUInt32LE(at + 24),
      length: b.readUInt32LE(at + 28),
      crc: b.readUInt32LE(at + 32),
    };
    if (e.offset !== end) throw new CacheUnreadable('table offsets do not follow each other');
    end = e.offset + e.length;
    entries[i] = e;
  }
  if (end !== fileSize) throw new CacheUnreadable(`file is ${fileSize} bytes, its table says ${end}`);
  return entries;
}

// ── the original outline: a small checked JSON file ──

const OUTLINE_MAGIC = 0x4c4f4253; // 'SBOL'

export function encodeOutline(outline: OutlineSegment[]): Buffer {
  const json = Buffer.from(JSON.stringify(outline));
  const head = Buffer.allocUnsafe(12);
  head.writeUInt32LE(OUTLINE_MAGIC, 0);
  head.writeUInt32LE(json.length, 4);
  head.writeUInt32LE(crc32(json), 8);
  return Buffer.concat([head, json]);
}

export function decodeOutline(buf: Buffer): OutlineSegment[] {
  if (buf.length < 12 || buf.readUInt32LE(0) !== OUTLINE_MAGIC) throw new CacheUnreadable('not an outline file');
  const json = buf.subarray(12);
  if (json.length !== buf.readUInt32LE(4) || crc32(json) !== buf.readUInt32LE(8))
    throw new CacheUnreadable('outline checksum mismatch');
  return JSON.parse(json.toString('utf8')) as OutlineSegment[];
}
