import { apkgDamaged, apkgTooLarge } from './apkgZipErrors';

/**
 * Walks the frames and block headers of zstd data without decoding it, to
 * bound the work before the decoder starts: every block states its size
 * (RLE and raw blocks exactly; a compressed block decodes to at most
 * min(window, 128 KiB)), and every frame states its window. The decoder
 * (fzstd) keeps a window of that size and moves it once per block, so an
 * unbounded window makes a few bytes cost minutes and gigabytes.
 */

/** Windows beyond this are refused: the zstd format asks decoders for at least 8 MiB, and Anki writes 2 MiB. */
export const MAX_ZSTD_WINDOW = 8 * 1024 * 1024;
/** Bytes of window the decoder may move in all (a window per block): 2,048 full blocks of an 8 MiB window; Anki's 256 MiB collection moves 4 GiB. */
const MAX_WINDOW_WORK = 2048 * MAX_ZSTD_WINDOW;
/**
 * Window work beyond the output: 128 bytes moved per byte decoded (an 8 MiB
 * window over full 128 KiB blocks is 64) plus 64 MiB. Tiny blocks under a
 * large window (2,000 one-byte RLE blocks: 16 GiB moved, seconds of CPU for
 * 2 KB) are refused before decoding.
 */
const WORK_PER_OUTPUT_BYTE = 128;
const WORK_FLOOR = 64 * 1024 * 1024;
/** Window work decoded between two turns of the event loop (tens of ms): the decoder cannot be interrupted mid-push. */
const TURN_WORK = 64 * 1024 * 1024;
/** Compressed bytes decoded between two turns of the event loop. */
const TURN_BYTES = 256 * 1024;
const MAX_BLOCK = 128 * 1024;
const ZSTD_MAGIC = 0xfd2fb528;

export interface ZstdBound {
  /** The most bytes the data can decode to (a compressed block counted as min(window, 128 KiB)). */
  maxOutput: number;
  /** The frames' declared content size, when every frame declares one. */
  declared?: number;
  /** Offsets (block ends, ascending, the last is the data's end) to feed the decoder up to, a turn of the event loop each. */
  cuts: number[];
}

const tooCostly = (what: string, limit: number) =>
  apkgTooLarge(`${what} has more zstd blocks than its size explains (too much window work for its output)`, limit);

/** Reads a frame header at `p`: where its blocks start, its window and its declared content size. */
function frameHeader(b: Uint8Array, p: number, what: string) {
  const fhd = b[p + 4];
  if (fhd === undefined || fhd & 8) throw apkgDamaged(`${what} has a damaged zstd frame header`);
  const single = (fhd >> 5) & 1;
  const fcsFlag = fhd >> 6;
  const dictBytes = [0, 1, 2, 4][fhd & 3];
  const fcsBytes = fcsFlag ? 1 << fcsFlag : single;
  let q = p + 5;
  let window = 0;
  if (!single) {
    const wd = b[q++];
    const base = 2 ** (10 + (wd >> 3));
    window = base + (base / 8) * (wd & 7);
  }
  q += dictBytes;
  let fcs: number | undefined;
  if (fcsBytes) {
    fcs = 0;
    for (let i = fcsBytes - 1; i >= 0; i--) fcs = fcs * 256 + b[q + i];
    if (fcsBytes === 2) fcs += 256;
    q += fcsBytes;
  }
  if (q > b.length) throw apkgDamaged(`${what} is cut short in a zstd frame header`);
  return { start: q, window: single ? fcs! : window, fcs, checksum: (fhd >> 2) & 1 };
}

/** The output bound of zstd data; 413 for a window beyond MAX_ZSTD_WINDOW, or an output or cost beyond the limits. */
export function zstdBound(b: Uint8Array, limit: number, what: string): ZstdBound {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let p = 0;
  let maxOutput = 0;
  /** Output of raw and RLE blocks: exact, so over `limit` it is certain. */
  let exact = 0;
  let work = 0;
  let declared: number | undefined = 0;
  const cuts: number[] = [];
  let [cutWork, cutAt] = [0, 0];
  while (p < b.length) {
    if (p + 8 > b.length) throw apkgDamaged(`${what} is cut short`);
    const magic = view.getUint32(p, true);
    // Skippable frames (0x184D2A50…5F) carry no output.
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      p += 8 + view.getUint32(p + 4, true);
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw apkgDamaged(`${what} is not zstd data`);
    const h = frameHeader(b, p, what);
    if (h.window > MAX_ZSTD_WINDOW)
      throw apkgTooLarge(`${what} asks for a ${h.window}-byte zstd window (at most ${MAX_ZSTD_WINDOW})`, limit);
    declared = h.fcs === undefined || declared === undefined ? undefined : declared + h.fcs;
    p = h.start;
    for (let last = 0; !last;) {
      if (p + 3 > b.length) throw apkgDamaged(`${what} is cut short in a zstd block`);
      const bh = b[p] | (b[p + 1] << 8) | (b[p + 2] << 16);
      last = bh & 1;
      const type = (bh >> 1) & 3;
      const size = bh >>> 3;
      if (type === 3) throw apkgDamaged(`${what} has a reserved zstd block type`);
      maxOutput += type === 2 ? Math.min(h.window, MAX_BLOCK) : size;
      if (type !== 2) exact += size;
      work += h.window;
      p += 3 + (type === 1 ? 1 : size);
      if (exact > limit) throw apkgTooLarge(`${what} decompresses to more than ${limit} bytes`, limit);
      if (work > MAX_WINDOW_WORK) throw tooCostly(what, limit);
      if (work - cutWork >= TURN_WORK || p - cutAt >= TURN_BYTES) {
        cuts.push(p);
        [cutWork, cutAt] = [work, p];
      }
    }
    p += h.checksum ? 4 : 0;
  }
  if (p > b.length) throw apkgDamaged(`${what} is cut short`);
  if (work > WORK_FLOOR + WORK_PER_OUTPUT_BYTE * maxOutput) throw tooCostly(what, limit);
  if (cuts.at(-1) !== b.length) cuts.push(b.length);
  if (declared !== undefined && declared > limit)
    throw apkgTooLarge(`${what} declares ${declared} bytes (limit ${limit})`, limit);
  return { maxOutput, cuts, ...(declared !== undefined ? { declared } : {}) };
}
