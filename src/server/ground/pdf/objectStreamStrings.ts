import { inflateSync } from 'node:zlib';

/**
 * pdf.js parses an object stream whole the first time it needs any object
 * in it, and builds a string a character at a time (an array entry each):
 * a 20 MB /Contents packed with the catalog cost ~1 GB before the worker's
 * budget ended it. Strings this long are no reader's; such a PDF is
 * refused before pdf.js opens it, for the cost of inflating its object
 * streams once.
 */
export const MAX_OBJECT_STREAM_STRING = 4 * 1024 * 1024;

const OBJSTM = Buffer.from('/ObjStm');
const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');
const fmt = (n: number) => n.toLocaleString('en-US');

/** The longest literal or hex string in PDF object syntax, in bytes (hex: two digits a byte). */
export function longestString(b: Uint8Array): number {
  let longest = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c === 0x25) {
      while (i < b.length && b[i] !== 0x0a && b[i] !== 0x0d) i++; // a comment
    } else if (c === 0x28) {
      const start = i;
      for (let depth = 1, escaped = false; depth && ++i < b.length;) {
        if (!escaped && b[i] === 0x28) depth++;
        if (!escaped && b[i] === 0x29) depth--;
        escaped = b[i] === 0x5c ? !escaped : false;
      }
      longest = Math.max(longest, i - start - 1);
    } else if (c === 0x3c && b[i + 1] !== 0x3c) {
      const start = i;
      while (++i < b.length && b[i] !== 0x3e);
      longest = Math.max(longest, Math.ceil((i - start - 1) / 2));
    } else if (c === 0x3c) i++; // "<<" opens a dictionary
  }
  return longest;
}

/** The data of the stream whose dictionary holds `/ObjStm` at `at`, inflated when it is Flate; undefined when unread. */
function objectStreamData(bytes: Buffer, at: number, maxBytes: number): Uint8Array | undefined {
  const begin = bytes.indexOf(STREAM, at);
  const end = begin < 0 ? -1 : bytes.indexOf(ENDSTREAM, begin);
  if (end < 0) return undefined;
  const dict = bytes.subarray(bytes.lastIndexOf('obj', at), begin).toString('latin1');
  let start = begin + STREAM.length;
  if (bytes[start] === 0x0d) start++;
  if (bytes[start] === 0x0a) start++;
  const raw = bytes.subarray(start, end);
  if (!/\/Filter\s*\[?\s*\/FlateDecode\s*\]?/.test(dict)) return /\/Filter/.test(dict) ? undefined : raw;
  try {
    return inflateSync(raw, { maxOutputLength: maxBytes, finishFlush: 2 /* Z_SYNC_FLUSH: tolerate a cut stream */ });
  } catch {
    return undefined; // a bomb or damage: the stream budget and pdf.js answer for those
  }
}

/**
 * Why the PDF must not be given to pdf.js: an object stream holding a string
 * over MAX_OBJECT_STREAM_STRING bytes; undefined when none does (or none
 * could be read: pdf.js and the budget decide those).
 */
export function objectStreamRefusal(bytes: Uint8Array, maxStreamBytes: number): string | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = buf.indexOf(OBJSTM); at >= 0; at = buf.indexOf(OBJSTM, at + OBJSTM.length)) {
    const data = objectStreamData(buf, at, maxStreamBytes);
    const longest = data ? longestString(data) : 0;
    if (longest > MAX_OBJECT_STREAM_STRING)
      return `an object stream holds a string of ${fmt(longest)} bytes (at most ${fmt(MAX_OBJECT_STREAM_STRING)} are read)`;
  }
  return undefined;
}
