/**
 * The guide's literal requests, read out of its Markdown as an agent reads them:
 * a code span `METHOD /path?query {json}`, `<name>` standing for the field
 * `name` of an earlier answer. Shared by the guide's unit test (each request
 * against its route's schemas) and the guide-only agent script.
 */
import { z } from 'zod';
import type { RouteDecl } from '../../src/server/api/http/routeTable';
import { effectiveSchemas } from '../../src/server/api/http/routeMiddleware';

export interface LiteralRequest {
  method: 'GET' | 'POST';
  /** Path and query as written, placeholders included. */
  target: string;
  /** The JSON body as written (placeholders still in its strings); undefined when the span has none. */
  body: unknown;
  /** The span's text. */
  text: string;
}

export function literalRequests(markdown: string): LiteralRequest[] {
  return [...markdown.matchAll(/`(GET|POST) (\/[^\s`]*)(?: (\{[^`]*\}))?`/g)].map((m) => ({
    method: m[1] as 'GET' | 'POST',
    target: m[2],
    body: m[3] === undefined ? undefined : JSON.parse(m[3]),
    text: m[0],
  }));
}

export const placeholders = (r: LiteralRequest): string[] => [
  ...new Set([...`${r.target} ${JSON.stringify(r.body ?? '')}`.matchAll(/<([^<>]+)>/g)].map((m) => m[1])),
];

/** Every `<name>` replaced by values[name] (in the path, the query and the body's strings). */
export function fill(
  r: LiteralRequest,
  values: Record<string, string>,
): { method: 'GET' | 'POST'; path: string; query: Record<string, string>; body: unknown } {
  const sub = (s: string, enc: (v: string) => string) =>
    s.replace(/<([^<>]+)>/g, (whole, name: string) => {
      if (!(name in values)) throw new Error(`${r.text}: no value for <${name}>`);
      return enc(values[name]);
    });
  const [pathPart, queryPart = ''] = r.target.split('?');
  const query = Object.fromEntries([...new URLSearchParams(queryPart)].map(([k, v]) => [k, sub(v, (x) => x)]));
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? sub(v, (x) => x)
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  return { method: r.method, path: sub(pathPart, encodeURIComponent), query, body: walk(r.body) };
}

/** The declared route a request's path belongs to, with its path parameters. */
export function routeOf(
  routes: readonly RouteDecl[],
  method: string,
  path: string,
): { route: RouteDecl; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const names: string[] = [];
    const re = new RegExp(`^${route.path.replace(/\{([^}]+)\}/g, (_m, n: string) => (names.push(n), '([^/]+)'))}$`);
    const m = re.exec(path);
    if (m) return { route, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
  }
  return undefined;
}

/** Object keys of `value` its schema does not declare (zod drops them silently; the bridge lists them in ignoredFields). */
export function unknownKeys(schema: z.ZodType, value: unknown, at = ''): string[] {
  const def = (schema as unknown as { def: { type: string } }).def;
  const s = schema as any;
  if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default')
    return unknownKeys(s.unwrap?.() ?? s.def.innerType, value, at);
  if (def.type === 'pipe') return unknownKeys(s.def.in, value, at);
  if (def.type === 'array' && Array.isArray(value))
    return value.flatMap((v, i) => unknownKeys(s.element, v, `${at}[${i}]`));
  if (def.type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
    const shape = s.shape as Record<string, z.ZodType>;
    return Object.entries(value).flatMap(([k, v]) =>
      k in shape ? unknownKeys(shape[k], v, `${at}.${k}`) : [`${at}.${k}`],
    );
  }
  return [];
}

/** Why a filled-in request would not pass its route's validation (empty: it would). */
export function requestProblems(routes: readonly RouteDecl[], req: ReturnType<typeof fill>): string[] {
  const found = routeOf(routes, req.method, req.path);
  if (!found) return [`${req.method} ${req.path} is not a declared route`];
  const schemas = effectiveSchemas(found.route);
  const problems: string[] = [];
  const check = (what: string, schema: z.ZodType, value: unknown) => {
    const r = schema.safeParse(value);
    if (!r.success)
      problems.push(`${what}: ${r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
    problems.push(...unknownKeys(schema, value).map((k) => `${what}: unknown field ${k}`));
  };
  check('params', schemas.params, found.params);
  check('query', schemas.query, req.query);
  if (found.route.rawBody) {
    if (req.body !== undefined) problems.push('a raw-body route given a JSON body');
  } else check('body', schemas.body, req.body ?? {});
  return problems;
}
