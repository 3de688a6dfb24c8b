import type { z } from 'zod';
import type { RouteResponse } from '../server/api/http/routeTable';
import type { BridgeRoute } from '../server/api/routes';
import type { RequestOptions, Requester, Success } from './requester';

/**
 * Calls typed by the route table itself: `call('GET /decks/{id}/stats', { params: { id } })`
 * answers that route's declared response type, and its params, query and body
 * are checked against the route's schemas. Types only come from src/server;
 * nothing of it loads at run time.
 */

/** Every route by its key, `"METHOD /path/{param}"`. */
export type RouteKey = BridgeRoute extends infer R
  ? R extends { method: infer M extends string; path: infer P extends string }
    ? string extends P
      ? never // a declaration that lost its literal path (typed as plain RouteDecl) names no key
      : `${M} ${P}`
    : never
  : never;

type RouteOf<K extends RouteKey> = Extract<
  BridgeRoute,
  { method: K extends `${infer M} ${string}` ? M : never; path: K extends `${string} ${infer P}` ? P : never }
>;
type Types<K extends RouteKey> = RouteOf<K> extends { types?: infer T } ? NonNullable<T> : never;
type Part<K extends RouteKey, N extends string> = Types<K> extends { [_ in N]: infer S } ? S : never;
type InputOf<S> = S extends z.ZodType ? z.input<S> : Record<string, unknown>;
type LooseAnswer = Success & Record<string, unknown>;

/** The success body of route K, as the client receives it (a route without a declared response: any JSON object). */
export type RouteAnswer<K extends RouteKey> =
  Part<K, 'response'> extends z.ZodObject<z.ZodRawShape>
    ? z.ZodObject<z.ZodRawShape> extends Part<K, 'response'>
      ? LooseAnswer
      : RouteResponse<Part<K, 'response'>>
    : LooseAnswer;

/** A query value as it goes in a URL. */
type QueryValue = string | number | boolean | undefined;

export type CallOptions<K extends RouteKey> = Omit<RequestOptions, 'query' | 'body'> & {
  params?: { [N in keyof InputOf<Part<K, 'params'>>]: string };
  query?: { [N in keyof InputOf<Part<K, 'query'>>]?: QueryValue } & { confirm?: QueryValue };
  body?: InputOf<Part<K, 'body'>> & { confirm?: boolean };
};

/** The path of `key` with its `{name}` parameters filled from `params`, each URL-encoded. */
export function routePath(key: string, params: Record<string, string> = {}): { method: 'GET' | 'POST'; path: string } {
  const space = key.indexOf(' ');
  const method = key.slice(0, space) as 'GET' | 'POST';
  const path = key.slice(space + 1).replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${key}: no value for the path parameter {${name}}`);
    return encodeURIComponent(value);
  });
  return { method, path };
}

/** Calls route `key` through `requester`; a non-2xx answer throws as `request` does. */
export function callRoute<K extends RouteKey>(
  requester: Requester,
  key: K,
  opts: CallOptions<K> = {},
): Promise<RouteAnswer<K>> {
  const { params, ...rest } = opts;
  const { method, path } = routePath(key, params);
  return requester.request<RouteAnswer<K>>(method, path, rest);
}
