import type { Context } from 'koa';
import { z } from 'zod';
import { BridgeError } from '../../errors';
import { BRIDGE_API_VERSION } from '../../version';
import { readBytes, readJson, refuseDeclaredOver } from './requestBody';
import { refuseUnstorable } from './storableText';
import { UNNAMED_AGENT, type Actor } from '../../actor';
import { covers, neededScope, routeScope } from '../../domain/security/scopes';
import type { Caller } from '../../domain/security/tokens';
import { Hijack, Reply, type RouteDecl, type RouteServices } from './routeTable';
import { holdForApproval } from './approvalGate';
import { jsonBytes, setJsonBody, setJsonBytes } from './jsonBody';
import type { AnswerCache } from './answerCache';

const emptyObject = z.object({});
const queryConfirm = z
  .union([z.literal('1'), z.literal('true'), z.literal('0'), z.literal('false')])
  .optional()
  .describe('confirm=1 commits');

/** Parses a part of the request, or refuses with 422 INVALID_INPUT listing the zod issues. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, location: 'params' | 'query' | 'body'): T {
  if (schema === emptyObject) return {} as T; // nothing declared: nothing to check (hot path of /status)
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  const issues = res.error.issues.map((i) => ({ location, path: i.path.join('.'), message: i.message, code: i.code }));
  const first = issues[0];
  throw new BridgeError(
    'INVALID_INPUT',
    422,
    `Invalid ${location}${first.path ? ` field "${first.path}"` : ''}: ${first.message}`,
    { issues },
  );
}

function bearer(ctx: Context): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
  return m?.[1];
}

function scopeRequired(route: RouteDecl, caller: Caller, need: string): BridgeError {
  const dryRun = need === 'write' && route.confirm !== undefined && route.confirm !== 'none';
  return new BridgeError(
    'SCOPE_REQUIRED',
    403,
    `${route.method} ${route.path} needs a token with scope ${need}; this token ("${caller.name}") has scope ${caller.scope}. Nothing was changed.${dryRun ? ' Without confirm, the call is a dry-run that a read token may make.' : ''}`,
    { scopeRequired: need, scope: caller.scope, tokenName: caller.name, routeScope: routeScope(route) },
  );
}

/** What a handler gets; the abort signal is made on first use only (most handlers never look). */
class Input {
  private controller: AbortController | undefined;
  constructor(
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly raw: Buffer,
    readonly caller: Caller | undefined,
    readonly bearer: string | undefined,
    readonly confirmed: boolean,
    readonly services: RouteServices,
    private readonly ctx: Context,
  ) {}

  get bodyStream() {
    return this.ctx.req;
  }

  get authorized(): boolean {
    return this.caller !== undefined;
  }

  get actor(): Actor {
    return this.caller?.actor ?? UNNAMED_AGENT;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const c = (this.controller = new AbortController());
      this.ctx.req.once('close', () => {
        if (!this.ctx.res.writableEnded) c.abort();
      });
    }
    return this.controller.signal;
  }
}

/** 415: the route takes raw bytes (a PDF), and JSON was sent. */
function rawBodyRequired(route: RouteDecl): BridgeError {
  return new BridgeError(
    'RAW_BODY_REQUIRED',
    415,
    `${route.method} ${route.path} takes the file's bytes (${route.rawBody?.mediaType}) as the body, not JSON. Over MCP use the study_upload tool (a path on this machine) or study_call with bodyBase64; over HTTP, POST /library/documents/import takes {path}. Nothing was stored.`,
    { mediaType: route.rawBody?.mediaType, mcpTool: 'study_upload' },
  );
}

/** The schemas a route really validates with: its own plus the confirm field its gate reads. */
export function effectiveSchemas(route: RouteDecl) {
  let body = route.body ?? emptyObject;
  let query = route.query ?? emptyObject;
  if (route.confirm === 'body') body = body.extend({ confirm: z.boolean().optional() });
  if (route.confirm === 'query') query = query.extend({ confirm: queryConfirm });
  return { params: route.params ?? emptyObject, query, body };
}

/**
 * Everything between the router and the handler, in the order of docs/ARCHITECTURE.md ("The request path"):
 * auth (who: the token) → scope (a dry-run needs read) → premium → body → validation → scope again, now that
 * confirm is known → confirm gate → approval gate (an agent's call the person must approve) → handler → success body.
 */
export function routeMiddleware(route: RouteDecl, services: RouteServices, answers: AnswerCache) {
  const schemas = effectiveSchemas(route);
  const bodyKeys = new Set(Object.keys(schemas.body.shape));
  return async (ctx: Context) => {
    const { token, caller } = authorize(route, services, ctx);
    const { raw, rawBody } = await readBody(route, services, ctx);
    const parts = parseParts(route, schemas, bodyKeys, ctx, rawBody);

    // A read token may ask a write route what it would do (the dry-run below), not do it.
    if (caller && route.auth !== 'none' && !covers(caller.scope, neededScope(route, parts.confirmed)))
      throw scopeRequired(route, caller, neededScope(route, parts.confirmed));

    const input = new Input(parts.params, parts.query, parts.body, raw, caller, token, parts.confirmed, services, ctx);
    if (!parts.confirmed) throw await confirmRequired(route, input);

    // An agent's call the person must approve is held, not run (approvalGate.ts): 202 with the approval.
    const held = await holdForApproval(route, input, services, {
      params: parts.rawParams,
      query: { ...ctx.query },
      body: rawBody,
    });
    if (held) {
      ctx.status = 202;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = { bridgeApiVersion: BRIDGE_API_VERSION, ...held };
      return;
    }
    await answer(route, input, ctx, answers, parts);
  };
}

/** Who asks (the bearer token), refused before the body is read when nothing could let the call through. */
function authorize(route: RouteDecl, services: RouteServices, ctx: Context) {
  const token = bearer(ctx);
  const caller = services.tokens.identify(token);
  if (route.auth !== 'none' && !caller) {
    throw new BridgeError(
      'UNAUTHORIZED',
      401,
      'Missing, invalid or revoked bearer token. Send "Authorization: Bearer <token>" (the owner\'s is <dataDir>/token; agents get their own).',
    );
  }
  // Beyond the token's scope even as a dry-run: refused before the body is read.
  if (caller && route.auth !== 'none' && !covers(caller.scope, neededScope(route, false)))
    throw scopeRequired(route, caller, neededScope(route, false));
  if (route.premium && !services.entitlements.premium()) {
    throw new BridgeError(
      'MAX_REQUIRED',
      403,
      `${route.method} ${route.path} needs the premium entitlement, which is off. Read routes keep working.`,
    );
  }
  return { token, caller };
}

/** The body: a file's bytes, a JSON object, or nothing yet (a streamed body is the handler's to read). */
async function readBody(route: RouteDecl, services: RouteServices, ctx: Context) {
  let raw: Buffer = Buffer.alloc(0);
  let rawBody: Record<string, unknown> = {};
  // A JSON body to a route that takes a file's bytes is a wrong channel, not a bad file (agents over MCP sent {path} here).
  if (route.rawBody?.mediaType && /^application\/json\b/i.test(ctx.get('Content-Type'))) throw rawBodyRequired(route);
  // A streamed body is the handler's to read (after the gates below); a declared length over the limit is refused now.
  if (route.rawBody?.stream) refuseDeclaredOver(ctx, services.config.limits.uploadBytes);
  else if (route.rawBody) raw = await readBytes(ctx, route.rawBody.limitBytes);
  else if (route.method === 'POST')
    rawBody = await readJson(ctx, route.jsonLimitBytes ?? services.config.limits.jsonBodyBytes);
  return { raw, rawBody };
}

/** The request's parts as validated, the body fields the route ignores, and whether the call is confirmed. */
interface Parts {
  rawParams: Record<string, string>;
  params: unknown;
  query: unknown;
  body: unknown;
  ignoredFields: string[];
  confirmed: boolean;
}

function parseParts(
  route: RouteDecl,
  schemas: ReturnType<typeof effectiveSchemas>,
  bodyKeys: Set<string>,
  ctx: Context,
  rawBody: Record<string, unknown>,
): Parts {
  const rawParams = (ctx as Context & { params?: Record<string, string> }).params ?? {};
  refuseUnstorable(rawParams, 'params');
  refuseUnstorable(ctx.query, 'query');
  const params = validate(schemas.params, rawParams, 'params');
  const query = validate(schemas.query, schemas.query === emptyObject ? {} : ctx.query, 'query');
  const body = validate(schemas.body, rawBody, 'body');
  const ignoredFields = Object.keys(rawBody).filter((k) => !bodyKeys.has(k));

  const confirmValue =
    route.confirm === 'body' ? (body as { confirm?: boolean }).confirm : (query as { confirm?: string }).confirm;
  const confirmed =
    !route.confirm ||
    route.confirm === 'none' ||
    confirmValue === true ||
    confirmValue === '1' ||
    confirmValue === 'true';
  return { rawParams, params, query, body, ignoredFields, confirmed };
}

/** 422 CONFIRM_REQUIRED, with what the call would do when the route has a dry-run. */
async function confirmRequired(route: RouteDecl, input: Input): Promise<BridgeError> {
  const how = route.confirm === 'query' ? 'the query parameter confirm=1' : 'confirm:true in the body';
  const preview = route.dryRun && route.preview ? await route.preview(input as never) : undefined;
  return new BridgeError(
    'CONFIRM_REQUIRED',
    422,
    `${route.method} ${route.path} changes the library and needs ${how}. Nothing was changed.${preview ? ' details holds what it would do.' : ''}`,
    { confirm: route.confirm, dryRun: !!preview, ...preview },
  );
}

/** The handler's answer on the wire: a kept answer, a hijacked response, a Reply, or the success body. */
async function answer(route: RouteDecl, input: Input, ctx: Context, answers: AnswerCache, parts: Parts) {
  // A read whose answer only the library's rows decide: served as last made until the next write (answerCache.ts).
  const cacheKey = route.sameUntilWrite
    ? `${route.path} ${JSON.stringify(parts.params)} ${JSON.stringify(parts.query)}`
    : undefined;
  const cached = cacheKey === undefined ? undefined : answers.get(cacheKey);
  if (cached) return setJsonBytes(ctx, cached);
  const mark = cacheKey === undefined ? undefined : answers.markNow();

  const result = await route.handler(input as never);
  if (result instanceof Hijack) {
    ctx.respond = false;
    await result.run(ctx.req, ctx.res);
    return;
  }
  if (result instanceof Reply) {
    ctx.status = result.status;
    ctx.type = result.contentType;
    for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
    ctx.body = result.body;
    return;
  }
  const { ignoredFields } = parts;
  const body = {
    bridgeApiVersion: BRIDGE_API_VERSION,
    ...result,
    ...(ignoredFields.length ? { ignoredFields } : {}),
  };
  if (cacheKey === undefined) return setJsonBody(ctx, body);
  const bytes = jsonBytes(body);
  answers.set(cacheKey, mark, bytes);
  setJsonBytes(ctx, bytes);
}
