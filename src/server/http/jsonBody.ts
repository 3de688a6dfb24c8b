import { Readable } from 'node:stream';
import type { Context } from 'koa';

/** An array longer than this is serialised in slices (a 10k-card tree; a 200-card batch-get stays one string). */
const LONG_ARRAY = 1024;
const SLICE = 256;

/**
 * The JSON of `value` in pieces, the same bytes as JSON.stringify(value), when
 * one of its top-level values is a long array; undefined otherwise. Each piece
 * stays small: a single 3 MB string and its 3 MB of bytes for the socket each
 * take fresh pages, which on this kind of machine cost more than the
 * serialising itself (bench/cards.bench.ts, the tree).
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
      for (let i = 0; i < v.length; i += SLICE) {
        const slice = JSON.stringify(v.slice(i, i + SLICE));
        pieces.push(`${open}${i ? ',' : ''}${slice.slice(1, -1)}`);
        open = '';
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

const isLong = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > LONG_ARRAY;

/** Sets a JSON success body: a long one as a stream of small buffers with its Content-Length, the rest as koa does. */
export function setJsonBody(ctx: Context, value: Record<string, unknown>): void {
  ctx.type = 'application/json; charset=utf-8';
  const pieces = jsonPieces(value);
  if (!pieces) {
    ctx.body = value;
    return;
  }
  const buffers = pieces.map((p) => Buffer.from(p, 'utf8'));
  ctx.body = Readable.from(buffers, { objectMode: false });
  ctx.length = buffers.reduce((n, b) => n + b.length, 0);
}
