/**
 * How the rest of a cut study_call answer is fetched, derived from the route
 * declaration rather than per route:
 * - a route whose query takes `start`/`end` and whose cut items carry
 *   ascending `page` numbers (page text): the next page range, a plain call
 *   of the route itself;
 * - a call whose body lists ids and whose cut items are those ids' records
 *   (batch-get): the ids not sent yet, a plain call too;
 * - any other call that only reads (GET, a read-scoped POST, a dry-run): the
 *   same call again with a `cursor` the MCP layer applies to the answer;
 * - a call that wrote: never run twice; the rest is held for a while and the
 *   cursor names the held answer.
 */
import type { RouteDecl } from '../http/routeTable';
import { neededScope } from '../../domain/security/scopes';
import { streamFields, type ItemCursor } from './jsonCut';

/** The MCP-level cursor of study_call: an item cursor over the answer's arrays (or a character offset for text), optionally on a held answer. */
export interface CallCursor {
  field?: string;
  from: number;
  held?: string;
}

/** The study_call arguments a `next` repeats (all but the cursor). */
export interface CallShape {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
  maxBytes?: number;
  imageMaxPx?: number;
}

/** The declaration serving `method path` (a path under the API prefix, without query). */
export function routeOf(routes: readonly RouteDecl[], method: string, path: string): RouteDecl | undefined {
  return routes.find(
    (r) =>
      r.method === method &&
      new RegExp(`^${r.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  );
}

/** Whether running the call again changes nothing: then a continuation may simply repeat it. */
export function rerunnable(route: RouteDecl | undefined, args: CallShape): boolean {
  if (args.method === 'GET') return true;
  if (!route) return false;
  const c = route.confirm === 'body' ? args.body?.confirm : route.confirm === 'query' ? args.query?.confirm : undefined;
  // Any confirm value at all counts as confirmed here: holding the answer is always safe, a second write is not.
  const confirmed =
    !route.confirm || route.confirm === 'none' || (c !== undefined && c !== false && c !== 'false' && c !== '0');
  return neededScope(route, confirmed) === 'read';
}

const queryKeys = (route: RouteDecl | undefined): string[] => {
  const shape = (route?.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
};

/**
 * The next page range when the route reads page ranges and the answer is cut
 * inside an array of ascending pages: start at the first page left out, end
 * where this answer ended. Undefined when the route or the cut is not that.
 */
export function nextPageRange(
  route: RouteDecl | undefined,
  answer: Record<string, unknown>,
  rest: ItemCursor,
  args: CallShape,
): CallShape | undefined {
  const keys = queryKeys(route);
  if (!keys.includes('start') || !keys.includes('end')) return undefined;
  const items = answer[rest.field];
  if (!Array.isArray(items)) return undefined;
  const pages = items.map((i: { page?: unknown } | null) => (i && typeof i === 'object' ? i.page : undefined));
  if (!pages.every((p, i) => Number.isInteger(p) && (i === 0 || (p as number) > (pages[i - 1] as number))))
    return undefined;
  const end = Number.isInteger(answer.end) ? (answer.end as number) : (pages[pages.length - 1] as number);
  const start = pages[rest.from] as number;
  // Only when every item left out is in the new range, and every item sent is not.
  if (rest.from > 0 && (pages[rest.from - 1] as number) >= start) return undefined;
  return { ...args, query: { ...(args.query ?? {}), start, end } };
}

/**
 * The ids not sent yet when the call's body names records by a list of ids
 * and the cut items are those records, each carrying its id (batch-get's
 * `noteIds` → `notes[].noteid`): the same call for those ids only, so the
 * rest comes as a plain call, the list echoed shrinks and nothing is read
 * twice. Ids with no record (`notFound`, not sent yet) stay in the list.
 */
export function nextIdList(answer: Record<string, unknown>, rest: ItemCursor, args: CallShape): CallShape | undefined {
  const body = args.body;
  const lists = Object.entries(body ?? {}).filter(
    (e): e is [string, string[]] => Array.isArray(e[1]) && e[1].length > 0 && e[1].every((x) => typeof x === 'string'),
  );
  const items = answer[rest.field];
  // A plain call answers every stream field again: only when the cut one comes first is nothing repeated.
  if (lists.length !== 1 || !Array.isArray(items) || rest.from < 1 || streamFields(answer)[0] !== rest.field)
    return undefined;
  const [listKey, ids] = lists[0];
  const records = items as Array<Record<string, unknown> | null>;
  // Ids compare case-blind: the bridge answers UUIDs in capitals whatever case they were asked in.
  const key = (id: string) => id.toUpperCase();
  const position = new Map(ids.map((id, i) => [key(id), i]));
  // Each record names one id of the list, in the list's order (so no two records share an id).
  const idKey = Object.keys(records[0] ?? {}).find((k) =>
    records.every((r, i) => {
      const at = r && typeof r[k] === 'string' ? position.get(key(r[k])) : undefined;
      const before = i > 0 ? position.get(key(records[i - 1]![k] as string))! : -1;
      return at !== undefined && at > before;
    }),
  );
  if (!idKey) return undefined;
  const sent = new Set(records.slice(0, rest.from).map((r) => key(r![idKey] as string)));
  return { ...args, body: { ...body, [listKey]: ids.filter((id) => !sent.has(key(id))) } };
}

/** `next` for a cut answer: the study_call arguments that fetch the rest. */
export function nextCall(
  route: RouteDecl | undefined,
  call: CallShape & { cursor?: CallCursor },
  answer: Record<string, unknown> | undefined,
  rest: CallCursor,
  heldId?: string,
): CallShape & { cursor?: CallCursor } {
  const { cursor: _cursor, ...args } = call;
  if (heldId) {
    // The write is never repeated: no body (so no confirm), only the held answer's cursor.
    const { body: _body, ...rerunSafe } = args;
    return { ...rerunSafe, cursor: { ...rest, held: heldId } };
  }
  if (answer && rest.field !== undefined) {
    const range =
      nextPageRange(route, answer, { field: rest.field, from: rest.from }, args) ??
      nextIdList(answer, { field: rest.field, from: rest.from }, args);
    if (range) return range;
  }
  return { ...args, cursor: rest };
}
