import { z } from 'zod';
import { koaPath } from '../http/app';
import { effectiveSchemas } from '../http/routeMiddleware';
import type { RouteDecl } from '../http/routeTable';
import { notFound } from '../../errors';
import { routeScope } from '../../domain/security/scopes';
import { MAX_HELD_BYTES, MAX_PENDING_PER_AGENT } from '../../domain/approvals/heldRequests';
import { BRIDGE_API_VERSION } from '../../version';
import { apiFingerprint } from './routeFingerprint';

type Json = Record<string, unknown>;

/** Drops `additionalProperties: false`: bodies may carry fields beyond the declared ones (the wrapper's, newer ones). */
function open(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(open);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) if (!(k === 'additionalProperties' && v === false)) out[k] = open(v);
  return out;
}

const jsonSchema = (s: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Json;
  return io === 'output' ? (open(rest) as Json) : rest;
};

/** `GET /study-sets/{id}/tree` → `getStudySetsByIdTree`: stable as long as the route's method and path are. */
export function operationId(method: string, path: string): string {
  const camel = (s: string) => s.replace(/(^|[-_.])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      const param = /^\{(\w+)\}$/.exec(seg);
      return param ? `By${camel(param[1])}` : camel(seg);
    });
  return method.toLowerCase() + parts.join('');
}

const WRAPPER: Json = {
  bridgeApiVersion: { type: 'string', description: 'The API version (also info.version).' },
  ignoredFields: {
    type: 'array',
    items: { type: 'string' },
    description: 'Body fields the route does not know, ignored.',
  },
  warnings: { type: 'array', items: {}, description: 'Things that went through but deserve a look.' },
};

/** The success body: the declared response plus the wrapper's fields (unless the route declares its own, e.g. typed warnings). */
function successSchema(r: RouteDecl): Json {
  if (!r.response) return { type: 'object', required: ['bridgeApiVersion'], properties: WRAPPER };
  const s = jsonSchema(r.response, 'output') as Json & { properties?: Json; required?: string[] };
  return {
    ...s,
    properties: { ...WRAPPER, ...s.properties },
    required: [...new Set(['bridgeApiVersion', ...(s.required ?? [])])],
  };
}

const errorRef = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** An agent's call held for the person's approval (policy: destructive routes, or all writes). */
const APPROVAL_PENDING = {
  description:
    "Held for the person's approval (an agent token; policy destructive: routes with x-destructive, or all-writes): {approvalId, state:'pending', summary:{text, dryRun}, expiresAt}. Nothing changed yet: poll GET /approvals/{id}.",
};

/** The 4xx answers a route's gates can give, and those its summary names (409 TITLE_MISMATCH, 429 EXPORT_BUSY…). */
function errorResponses(r: RouteDecl): Record<string, unknown> {
  const why = new Map<number, string[]>();
  const add = (status: number, reason: string) => why.set(status, [...(why.get(status) ?? []), reason]);
  if (r.method === 'POST' && !r.rawBody) add(400, 'INVALID_JSON: the body is not a JSON object');
  if (r.auth !== 'none') add(401, 'UNAUTHORIZED: missing or invalid bearer token');
  add(403, 'FORBIDDEN_ORIGIN / FORBIDDEN_HOST: not a loopback client');
  if (r.premium) add(403, 'MAX_REQUIRED: the premium entitlement is off');
  if (r.auth !== 'none' && routeScope(r) !== 'read')
    add(403, `SCOPE_REQUIRED: the token's scope is below ${routeScope(r)} (details.scopeRequired)`);
  if (r.params) add(404, '*_NOT_FOUND: the path names nothing');
  if (r.method === 'POST') add(413, 'PAYLOAD_TOO_LARGE: the body exceeds the limit');
  // An agent's call the approval policy holds (the 202 below) is bounded per agent and in size (approvals/heldRequests.ts).
  const holdable = r.method === 'POST' && r.auth !== 'none' && routeScope(r) === 'write';
  if (holdable) {
    add(413, `APPROVAL_BODY_TOO_LARGE: a call held for approval carries at most ${MAX_HELD_BYTES / 1024 / 1024} MiB`);
    add(429, `TOO_MANY_PENDING: this agent token already has ${MAX_PENDING_PER_AGENT} calls waiting for approval`);
  }
  if (r.params || r.query || r.body) add(422, 'INVALID_INPUT: the request does not match its schema');
  if (r.confirm && r.confirm !== 'none')
    add(
      422,
      r.dryRun
        ? 'CONFIRM_REQUIRED: not confirmed; details holds the dry-run preview'
        : 'CONFIRM_REQUIRED: not confirmed; nothing changed',
    );
  // The refusals a summary names (`422 OUTLINE_TOO_COSTLY`) by code, beside the gates' own of the same status.
  for (const m of r.summary.matchAll(/\b(4\d\d)\b(?: ([A-Z][A-Z_]+[A-Z])\b)?/g)) {
    const status = Number(m[1]);
    const named = m[2] && !why.get(status)?.some((w) => w.startsWith(`${m[2]}:`));
    if (named) add(status, `${m[2]}: see the summary`);
    else if (!why.has(status)) add(status, 'see the summary');
  }
  const out: Record<string, unknown> = {};
  for (const status of [...why.keys()].sort()) out[String(status)] = errorRef(why.get(status)!.join('; '));
  return out;
}

function successResponse(r: RouteDecl): Json {
  if (r.replyType) {
    const type = r.replyType.split(';')[0];
    const schema =
      type === 'application/json'
        ? { type: 'object' }
        : type.startsWith('text/')
          ? { type: 'string' }
          : { type: 'string', format: 'binary' };
    return { description: 'Success', content: { [type]: { schema } } };
  }
  return { description: 'Success', content: { 'application/json': { schema: successSchema(r) } } };
}

/** An operation's tag: the first segment of its path (`/decks/{id}/due` → `decks`), for `?tag=`. */
export const tagOf = (path: string) => path.split('/').filter(Boolean)[0] ?? '';

/** Which routes `?path=` and `?tag=` keep (both: both must hold); 404 naming what exists when nothing matches. */
export function filterRoutes(
  routes: readonly RouteDecl[],
  filter: { path?: string; tag?: string },
): readonly RouteDecl[] {
  if (filter.path === undefined && filter.tag === undefined) return routes;
  const norm = (p: string) => `/${p.replace(/^\/+|\/+$/g, '')}`.replace(/^\/bridge\/v1(?=\/)/, '');
  const kept = routes.filter(
    (r) =>
      (filter.path === undefined || r.path === norm(filter.path)) &&
      (filter.tag === undefined || tagOf(r.path) === filter.tag),
  );
  if (!kept.length) {
    const tags = [...new Set(routes.map((r) => tagOf(r.path)))].sort();
    throw notFound(
      'ROUTE_NOT_FOUND',
      `No route matches${filter.path !== undefined ? ` path ${filter.path}` : ''}${filter.tag !== undefined ? ` tag ${filter.tag}` : ''}. Paths are as declared, with {name} parameters (e.g. /decks/{id}/cards; see /capabilities); tags: ${tags.join(', ')}.`,
      { tags },
    );
  }
  return kept;
}

/** OpenAPI 3.1 of the bridge, derived from the route table and its zod schemas; `routes` may be a filtered part (the fingerprint is the whole table's). */
export function buildOpenApi(routes: readonly RouteDecl[], baseUrl: string, all: readonly RouteDecl[] = routes) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = koaPath(r.path)
      .replace(/^\/bridge\/v1/, '')
      .replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Study Bridge',
      version: BRIDGE_API_VERSION,
      'x-bridge-api-version': BRIDGE_API_VERSION,
      'x-api-fingerprint': apiFingerprint(all),
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: ERROR_SCHEMA },
    },
    paths,
  };
}

/** The error body every refusal has (errorMapper.ts). */
const ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'bridgeApiVersion'],
  properties: {
    bridgeApiVersion: { type: 'string' },
    error: {
      type: 'object',
      required: ['code', 'message', 'retryable'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        retryable: { type: 'boolean' },
        details: { type: 'object' },
      },
    },
  },
};

/** One route as an OpenAPI operation, with the bridge's own x- fields. */
function operation(r: RouteDecl) {
  const s = effectiveSchemas(r);
  return {
    operationId: operationId(r.method, r.path),
    tags: [tagOf(r.path)],
    summary: r.summary,
    security: r.auth === 'none' ? [] : [{ bearer: [] }],
    'x-requires-max': !!r.premium,
    'x-confirm': r.confirm ?? 'none',
    'x-dry-run': !!r.dryRun,
    'x-scope': r.auth === 'none' ? 'none' : routeScope(r),
    'x-destructive': r.destructive ? (r.destructive.when?.says ?? true) : false,
    'x-listed': r.listed !== false,
    parameters: parameters(s),
    ...(r.method === 'POST' ? { requestBody: requestBody(r, s) } : {}),
    responses: {
      '200': successResponse(r),
      ...(r.method === 'POST' && r.auth !== 'none' && routeScope(r) === 'write' ? { '202': APPROVAL_PENDING } : {}),
      ...errorResponses(r),
      default: errorRef('Any other error (5xx: retryable says whether to try again)'),
    },
  };
}

/** Path parameters (all required), then query parameters. */
function parameters(s: ReturnType<typeof effectiveSchemas>) {
  const params = Object.entries((jsonSchema(s.params, 'input').properties ?? {}) as Json).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    schema,
  }));
  const q = jsonSchema(s.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  const query = Object.entries(q.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: q.required?.includes(name) ?? false,
    schema,
  }));
  return [...params, ...query];
}

/** A file's bytes, or a JSON body with its example. */
function requestBody(r: RouteDecl, s: ReturnType<typeof effectiveSchemas>) {
  return r.rawBody
    ? {
        required: true,
        content: {
          'application/octet-stream': {
            schema: { type: 'string', format: 'binary', maxLength: r.rawBody.limitBytes },
          },
        },
      }
    : {
        content: {
          'application/json': {
            schema: jsonSchema(s.body, 'input'),
            ...(r.example?.body ? { example: r.example.body } : {}),
          },
        },
      };
}
