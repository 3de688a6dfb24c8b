import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { RawJson } from '../../ground/text/rawJson';

/** A top-level array longer than this is serialised in slices (a 10k-card tree, a 200-card batch-get). */
const LONG_ARRAY = 32;
/** Characters a piece aims at: well under the size V8 gives a string pages of its own (128 KB). */
const PIECE_CHARS = 16 * 1024;

/**
 * The JSON of `value` in pieces, the same bytes as JSON.stringify(value), when
 * one of its top-level values is an array of more than a few items; undefined
 * otherwise. Each piece stays small: one 3 MB string (the tree of 10k cards)
 * and its 3 MB of bytes for the socket each take fresh pages, which on this
 * machine cost more than the serialising itself (bench/cards.bench.ts).
 */
export function jsonPieces(value: Record<string, unknown>): string[] | undefined {
  const keys = Object.keys(value);
  if (!keys.some((k) => isLong(value[k]))) return undefined;
  const pieces: string[] = [];
  let open = '{';
  let first = true;
  for (const k of keys) {
    const v = value[k];
    const sep = first ? '' : ',';
    if (isLong(v)) {
      open += `${sep}${JSON.stringify(k)}:[`;
      // Slices sized from the last one's length: a tree node is 300 bytes, a card with its texts a few KB.
      for (let i = 0, n = 16; i < v.length;) {
        const slice = arrayJson(v.slice(i, i + n));
        pieces.push(`${open}${i ? ',' : ''}${slice.slice(1, -1)}`);
        open = '';
        i += n;
        n = Math.max(1, Math.min(1024, Math.round((n * PIECE_CHARS) / slice.length)));
      }
      open = ']';
      first = false;
      continue;
    }
    const json = JSON.stringify(v) as string | undefined; // undefined, a function or a symbol: left out, as JSON.stringify does
    if (json === undefined) continue;
    open += `${sep}${JSON.stringify(k)}:${json}`;
    first = false;
  }
  pieces.push(`${open}}`);
  return pieces;
}

/** JSON.stringify(items), RawJson items as their text. */
function arrayJson(items: unknown[]): string {
  if (!items.some((x) => x instanceof RawJson)) return JSON.stringify(items);
  return `[${items.map((x) => (x instanceof RawJson ? x.json : (JSON.stringify(x) ?? 'null'))).join(',')}]`;
}

const isLong = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > LONG_ARRAY;

const JSON_TYPE = 'application/json; charset=utf-8';

/** jsonPieces as UTF-8 buffers; undefined when the value is not worth cutting. */
function pieceBuffers(value: Record<string, unknown>): Buffer[] | undefined {
  return jsonPieces(value)?.map((p) => Buffer.from(p, 'utf8'));
}

/**
 * Up to this many bytes, a long answer's pieces go joined in one buffer, one socket write: streamed, each piece
 * costs a turn of both event loops (a /due answer of 200 cards, 160 KB, from a client in its own process: p50
 * ~9 ms streamed, ~6 ms whole). Beyond it (a 10k-card tree, 3 MB) the pieces stream, as their pages would cost more.
 */
const ONE_BUFFER_BYTES = 1024 * 1024;

/** Sets a JSON success body: a long one as small buffers (joined when not too long) with its Content-Length, the rest as koa does. */
export function setJsonBody(ctx: Context, value: Record<string, unknown>): void {
  ctx.type = JSON_TYPE;
  const buffers = pieceBuffers(value);
  if (!buffers) {
    ctx.body = value;
    return;
  }
  const length = buffers.reduce((n, b) => n + b.length, 0);
  ctx.body =
    length <= ONE_BUFFER_BYTES ? Buffer.concat(buffers, length) : Readable.from(buffers, { objectMode: false });
  ctx.length = length;
}

/** The answer as one buffer (to keep: answerCache.ts), the same bytes as setJsonBody sends. */
export function jsonBytes(value: Record<string, unknown>): Buffer {
  const buffers = pieceBuffers(value);
  return buffers ? Buffer.concat(buffers) : Buffer.from(JSON.stringify(value), 'utf8');
}

/** Sends JSON already serialised: one buffer, one write. */
export function setJsonBytes(ctx: Context, bytes: Buffer): void {
  ctx.type = JSON_TYPE;
  ctx.body = bytes;
}
