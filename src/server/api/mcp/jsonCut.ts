/**
 * Cutting a route's JSON answer to a byte budget at whole items. The answer's
 * top-level arrays (and maps of records) are read as one stream of items, in
 * the answer's key order; the other fields always stay. A cut keeps a prefix of that stream
 * and names where the rest starts, so a continuation can resume exactly there:
 * no item is lost or repeated. The result is re-serialized, so it is valid JSON.
 */

/** Where a continuation resumes: `from` is an index into the answer's array (or map's entries) `field`. */
export interface ItemCursor {
  field: string;
  from: number;
}

/** An item too large for the budget on its own, sent with its longest strings shortened. */
export interface ShortenedItem {
  field: string;
  index: number;
  fullBytes: number;
}

export interface JsonCut {
  text: string;
  /** Set when items were left out: where the rest starts. */
  rest?: ItemCursor;
  /** What this result holds of the cut field(s): first and last index sent, per field. */
  sent: Array<{ field: string; from: number; count: number; of: number }>;
  shortened: ShortenedItem[];
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const json = (v: unknown) => JSON.stringify(v);

/** A plain object whose every value is an object or array: a map of records (OpenAPI's `paths`), cut by entry like an array. */
const isRecordMap = (v: unknown): v is Record<string, unknown> =>
  !!v &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  Object.keys(v).length > 0 &&
  Object.values(v).every((x) => !!x && typeof x === 'object');

/** The fields of an answer that are cut by item: its top-level arrays and maps of records, in its key order. */
export const streamFields = (answer: Record<string, unknown>) =>
  Object.keys(answer).filter((k) => Array.isArray(answer[k]) || isRecordMap(answer[k]));

/** A stream field's items: [key, value] (no key for an array's items). */
const entries = (v: unknown): Array<[string | undefined, unknown]> =>
  Array.isArray(v) ? v.map((x) => [undefined, x]) : Object.entries(v as object);

export const streamLength = (answer: Record<string, unknown>, field: string) => entries(answer[field]).length;

/** Bytes an entry adds inside its array or object (`"key":` included). */
const entryBytes = ([key, value]: [string | undefined, unknown]) =>
  bytes(json(value)) + (key === undefined ? 0 : bytes(json(key)) + 1);

/**
 * The answer from `cursor` on (streams before its field emptied, its field
 * from `from`), cut to `budget` bytes. At least one item is always sent, so
 * following the cursor always advances: an item larger than the budget on its
 * own has its longest strings shortened (and is listed in `shortened`).
 * Undefined when even the answer without any item is over the budget.
 */
export function cutJson(answer: Record<string, unknown>, budget: number, cursor?: ItemCursor): JsonCut | undefined {
  const fields = streamFields(answer);
  const startField = cursor ? fields.indexOf(cursor.field) : 0;
  const out: Record<string, unknown> = { ...answer };
  const rebuild = (field: string, kept: Array<[string | undefined, unknown]>) => {
    out[field] = Array.isArray(answer[field]) ? kept.map(([, v]) => v) : Object.fromEntries(kept);
  };
  for (const f of fields) rebuild(f, []);
  let used = bytes(json(out));
  if (used > budget) return undefined;
  const sent: JsonCut['sent'] = [];
  const shortened: ShortenedItem[] = [];
  let total = 0;
  for (let fi = Math.max(startField, 0); fi < fields.length; fi++) {
    const field = fields[fi];
    const items = entries(answer[field]);
    const from = cursor && fi === startField ? cursor.from : 0;
    const kept: Array<[string | undefined, unknown]> = [];
    for (let i = from; i < items.length; i++) {
      // Every item after the first of its array or object adds a comma.
      let item = items[i];
      let size = entryBytes(item) + (kept.length ? 1 : 0);
      if (used + size > budget) {
        if (total > 0) {
          rebuild(field, kept);
          if (kept.length) sent.push({ field, from, count: kept.length, of: items.length });
          return { text: json(out), rest: { field, from: i }, sent, shortened };
        }
        // Nothing sent yet and this one item is over the budget: sent shortened, so the reader still advances.
        item = [item[0], shorten(item[1], budget - used - (entryBytes([item[0], null]) - 4))];
        size = entryBytes(item);
        shortened.push({ field, index: i, fullBytes: entryBytes(items[i]) });
      }
      kept.push(item);
      used += size;
      total++;
    }
    rebuild(field, kept);
    if (items.length > from) sent.push({ field, from, count: kept.length, of: items.length });
  }
  return { text: json(out), sent, shortened };
}

const MARK = (n: number) => `…[${n} more characters cut: over the byte budget]`;

/** Cuts `s` to at most `keep` UTF-16 units without splitting a surrogate pair. */
function cutString(s: string, keep: number): string {
  let end = Math.max(0, Math.min(keep, s.length));
  const code = s.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--;
  return s.slice(0, end) + MARK(s.length - end);
}

/** The paths of every string leaf in a value. */
function stringLeaves(
  v: unknown,
  path: Array<string | number> = [],
  acc: Array<{ path: Array<string | number>; s: string }> = [],
) {
  if (typeof v === 'string') acc.push({ path, s: v });
  else if (Array.isArray(v)) v.forEach((x, i) => stringLeaves(x, [...path, i], acc));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) stringLeaves(x, [...path, k], acc);
  return acc;
}

function setAt(root: unknown, path: Array<string | number>, value: string): unknown {
  if (!path.length) return value;
  const copy = (Array.isArray(root) ? [...(root as unknown[])] : { ...(root as object) }) as Record<
    string | number,
    unknown
  >;
  copy[path[0]] = setAt(copy[path[0]], path.slice(1), value);
  return copy;
}

/**
 * One item shrunk to `room` bytes: its longest strings are cut (each marked
 * with how much was cut) until it fits. An item that still cannot fit (no
 * strings left to cut) is replaced by a note of its size.
 */
export function shorten(item: unknown, room: number): unknown {
  const leaves = stringLeaves(item).map((l) => ({ ...l, keep: l.s.length }));
  let cur = item;
  for (let round = 0; round < 200; round++) {
    const over = bytes(json(cur)) - room;
    if (over <= 0) return cur;
    const leaf = leaves.reduce<(typeof leaves)[number] | undefined>(
      (best, l) => (l.keep > 0 && (!best || l.keep > best.keep) ? l : best),
      undefined,
    );
    if (!leaf) break;
    // Bytes per character of this string (escapes, multi-byte characters), to cut in one or two rounds.
    const perChar = Math.max(1, (bytes(json(leaf.s)) - 2) / Math.max(1, leaf.s.length));
    leaf.keep = Math.max(0, Math.floor(leaf.keep - (over + 48) / perChar));
    cur = setAt(cur, leaf.path, cutString(leaf.s, leaf.keep));
  }
  if (bytes(json(cur)) <= room) return cur;
  return { omitted: true, bytes: bytes(json(item)), reason: 'one item over the byte budget' };
}
