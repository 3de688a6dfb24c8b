import type { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { BridgeServices } from '../../services';
import type { Actor } from '../../actor';
import type { Scope } from '../../domain/security/scopes';
import type { Caller } from '../../domain/security/tokens';

/** Where a route's confirmation lives: nowhere, `confirm:true` in the body, or `?confirm=1`. */
export type ConfirmKind = 'none' | 'body' | 'query';

type AnyObject = z.ZodObject<z.ZodRawShape>;
type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

/** A non-JSON answer (a script, a PNG, a PDF, Markdown). JSON answers are plain objects. */
export class Reply {
  constructor(
    readonly body: string | Buffer,
    readonly contentType: string,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

/**
 * The handler answers on the raw Node request/response itself (the MCP
 * transport does). Auth, guard and body limits have already run.
 */
export class Hijack {
  constructor(readonly run: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {}
}

export type RouteResult = Record<string, unknown> | Reply | Hijack;

/** What a handler reaches: the services, and the route table for the system routes that describe it. */
export interface RouteServices extends BridgeServices {
  routes: readonly RouteDecl[];
}

/**
 * Literal types widened (`'normal'` → string, `true` → boolean): services build
 * their answers without `as const`, so the compiler checks a result's fields and
 * their kinds; the exact values are checked by the API tests against the schema.
 */
type Widen<T> = T extends string
  ? string
  : T extends boolean
    ? boolean
    : T extends number
      ? number
      : T extends ReadonlyArray<infer U>
        ? ReadonlyArray<Widen<U>>
        : T extends object
          ? { [K in keyof T]: Widen<T[K]> }
          : T;

/** What a handler may return: its declared response's input type, or a non-JSON answer. */
type HandlerResult<R> =
  | Reply
  | Hijack
  | (R extends AnyObject
      ? AnyObject extends R
        ? Record<string, unknown>
        : Widen<z.input<R>>
      : Record<string, unknown>);

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** Request bytes, for routes declared with `rawBody` (empty when it streams). */
  raw: Buffer;
  /** The request body as it arrives, for routes declared with `rawBody.stream` (never read before the handler). */
  bodyStream: Readable;
  /** A valid bearer token was sent (always true on token routes; informative on token-free ones). */
  authorized: boolean;
  /** True when the confirm gate was passed (always true on `confirm:'none'` routes). */
  confirmed: boolean;
  services: RouteServices;
  /**
   * Who asked, from the bearer token: the owner token is the person ('user'),
   * every agent token that named agent. The operation log records it, and
   * restore refuses to overwrite the person's edits. No header can claim it.
   */
  actor: Actor;
  /** The token's holder; undefined on token-free routes called without a valid token. */
  caller: Caller | undefined;
  /** The bearer token as sent, for the MCP channel, which calls routes on the caller's behalf. */
  bearer: string | undefined;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/**
 * One declaration per route. Everything else about a route (auth, premium and
 * confirm middleware, /capabilities, the guide's table, OpenAPI, MCP dispatch)
 * is derived from this.
 */
export interface RouteDecl<
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends AnyObject = AnyObject,
  R extends AnyObject = AnyObject,
> {
  method: 'GET' | 'POST';
  /** Path under /bridge/v1 with `{name}` parameters, e.g. `/documents/{id}/pages`. */
  path: string;
  /** One line for the guide and OpenAPI. */
  summary: string;
  /** 'none' only for the routes whose credential is not the bearer token. Default 'token'. */
  auth?: 'token' | 'none';
  /**
   * The token scope a confirmed call needs (read < write < owner). Default:
   * read for GET, write for POST; an unconfirmed call of a confirm-gated
   * route is a dry-run and needs only read (security/scopes.ts).
   */
  scope?: Scope;
  /** Needs the premium entitlement. Default false. */
  premium?: boolean;
  /** Default 'none'. */
  confirm?: ConfirmKind;
  /** True dry-run: without confirm, `preview` runs and its result is the 422's `details`. */
  dryRun?: boolean;
  /**
   * The call loses the person's data: under the approval policy 'destructive'
   * (the extension's default) an agent's confirmed call waits for the person
   * (approvals/). `when` narrows it to some calls (said in /capabilities and
   * OpenAPI); `describe` turns the call and its dry-run into one line for them.
   */
  destructive?: Destructive<RouteInput<Out<P>, Out<Q>, Out<B>>>;
  /** Listed in /capabilities. Default true (POST /pair is not, as in the reference). */
  listed?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The body is raw bytes, read up to this many bytes; else JSON. `stream`:
   * not read at all, the handler consumes `bodyStream` (uploads: written to
   * disk as they arrive, under the configured upload limit). `mediaType`: the
   * bytes a route takes (a PDF); a JSON body sent to it is refused with 415
   * RAW_BODY_REQUIRED, and /capabilities and the guide mark the route.
   */
  rawBody?: { limitBytes: number; stream?: boolean; mediaType?: string };
  /** JSON body limit in bytes. Default 1 MiB. */
  jsonLimitBytes?: number;
  /**
   * A valid request (confirm aside) for the guide and the generic refusal tests.
   * Ids in it may name nothing: the refusal gates run before any lookup.
   */
  example?: { params?: Record<string, string>; query?: Record<string, string>; body?: Record<string, unknown> };
  /**
   * The JSON success body, without the wrapper's bridgeApiVersion, ignoredFields
   * and warnings (added to every success body). OpenAPI publishes it, the API
   * tests check every answer against it, the client's result types derive from it.
   */
  response?: R;
  /**
   * The answer is decided by the library's rows and the request alone (not the
   * caller, the clock or files): it is kept serialised and sent again until the
   * next write (answerCache.ts). For large reads asked again and again (a tree).
   */
  sameUntilWrite?: boolean;
  /** The content type of a non-JSON success answer (a `Reply`: Markdown, a script, a PNG, a PDF). */
  replyType?: string;
  preview?: (input: RouteInput<Out<P>, Out<Q>, Out<B>>) => Promise<Record<string, unknown>>;
  handler: (input: RouteInput<Out<P>, Out<Q>, Out<B>>) => Promise<HandlerResult<R>>;
}

/** How a route declares that it loses the person's data (RouteDecl.destructive). */
export interface Destructive<I> {
  /** Only some calls are: the condition in words, and its test. */
  when?: { says: string; test: (input: I) => boolean | Promise<boolean> };
  /** One line for the person: "delete 12 cards, 3 of them in review decks". */
  describe?: (input: I, dryRun: Record<string, unknown> | undefined) => string | Promise<string>;
}

/**
 * A declaration as the client sees it: its method and path as literals, and its
 * schemas' types (`types` is never set; it only carries them to client/routeCalls.ts).
 */
export interface TypedRoute<M extends string, Path extends string, P, Q, B, R> extends RouteDecl {
  method: M & RouteDecl['method'];
  path: Path;
  readonly types?: { params: P; query: Q; body: B; response: R };
}

/** Identity function that gives a declaration its inferred input types, and keeps them for the client. */
export function defineRoute<
  const M extends RouteDecl['method'],
  const Path extends string,
  P extends AnyObject,
  Q extends AnyObject,
  B extends AnyObject,
  R extends AnyObject = AnyObject,
>(decl: RouteDecl<P, Q, B, R> & { method: M; path: Path }): TypedRoute<M, Path, P, Q, B, R> {
  return decl as unknown as TypedRoute<M, Path, P, Q, B, R>;
}

/** The fields the success wrapper adds to every JSON success body. */
export interface SuccessFields {
  bridgeApiVersion: string;
  ignoredFields?: string[];
  warnings?: unknown[];
}

/** A route's success body as the client receives it: its declared `response` schema's output plus the wrapper's fields. */
export type RouteResponse<S extends z.ZodType> = z.output<S> & Omit<SuccessFields, keyof z.output<S>>;

/** One element of an array field of a route's response (e.g. a tree node). */
export type RouteResponseItem<S extends z.ZodType, K extends keyof z.output<S>> =
  z.output<S>[K] extends ReadonlyArray<infer T> ? T : never;
