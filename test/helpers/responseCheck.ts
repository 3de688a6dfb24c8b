import { appendFileSync } from 'node:fs';
import type { z } from 'zod';
import { API_PREFIX } from '../../src/server/api/http/app';
import type { RouteDecl } from '../../src/server/api/http/routeTable';
import { allRoutes } from '../../src/server/api/routes';
import { approvalPendingResponse } from '../../src/server/api/routes/approvals';

/**
 * Checks success bodies against the route's declared `response` schema, so a
 * handler that drifts from its declaration fails the test that called it.
 * Declared fields must be present with their declared types; undeclared extra
 * fields are allowed (zod objects strip them), as the wrapper's are.
 */

interface Matcher {
  route: RouteDecl;
  re: RegExp;
  literalSegments: number;
}

const matchers: Matcher[] = allRoutes.map((route) => ({
  route,
  re: new RegExp(
    `^${API_PREFIX}${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}|\{\w+\}/g, '[^/]+')}$`,
  ),
  literalSegments: route.path.split('/').filter((s) => s && !s.startsWith('{')).length,
}));

/** The route serving `method pathname` (a literal segment beats a parameter, as in the router). */
export function routeFor(
  method: string,
  pathname: string,
  routes: readonly Matcher[] = matchers,
): RouteDecl | undefined {
  let best: Matcher | undefined;
  for (const m of routes) {
    if (m.route.method !== method || !m.re.test(pathname)) continue;
    if (!best || m.literalSegments > best.literalSegments) best = m;
  }
  return best?.route;
}

export interface Drift {
  route: string;
  issues: Array<{ path: string; message: string }>;
}

/** The wrapper's own fields, present on every JSON success body. */
function checkWrapper(body: Record<string, unknown>): Drift['issues'] {
  const issues: Drift['issues'] = [];
  if (typeof body.bridgeApiVersion !== 'string')
    issues.push({ path: 'bridgeApiVersion', message: 'missing or not a string' });
  if (
    'ignoredFields' in body &&
    !(Array.isArray(body.ignoredFields) && body.ignoredFields.every((f) => typeof f === 'string'))
  ) {
    issues.push({ path: 'ignoredFields', message: 'not an array of strings' });
  }
  if ('warnings' in body && !Array.isArray(body.warnings)) issues.push({ path: 'warnings', message: 'not an array' });
  return issues;
}

/** Validates one JSON success body against `schema`; undefined when it conforms. */
export function checkBody(routeName: string, schema: z.ZodType, body: unknown): Drift | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { route: routeName, issues: [{ path: '', message: 'not a JSON object' }] };
  const issues = checkWrapper(body as Record<string, unknown>);
  const res = schema.safeParse(body);
  if (!res.success) issues.push(...res.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
  return issues.length ? { route: routeName, issues } : undefined;
}

/** The drift of one HTTP answer, if its route declares a response and the answer is a 2xx JSON body. */
export function checkAnswer(
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  text: string,
): Drift | undefined {
  if (status < 200 || status >= 300 || !contentType?.startsWith('application/json')) return undefined;
  const { pathname } = new URL(url);
  const route = routeFor(method, pathname);
  if (!route) return undefined;
  const name = `${route.method} ${route.path}`;
  if (process.env.RESPONSE_SAMPLES)
    appendFileSync(process.env.RESPONSE_SAMPLES, `${JSON.stringify({ route: name, body: JSON.parse(text) })}\n`);
  // 202 with approvalId: the call was held for the person's approval, an answer of its own shape (routes/approvals.ts).
  const body = JSON.parse(text) as Record<string, unknown> | null;
  if (status === 202 && body && typeof body === 'object' && 'approvalId' in body)
    return checkBody(`${name} (202 held)`, approvalPendingResponse, body);
  if (!route.response) return undefined;
  return checkBody(name, route.response, JSON.parse(text));
}

export const describeDrift = (d: Drift) =>
  `Response drift on ${d.route}: ${d.issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`;

export class ResponseDriftError extends Error {
  constructor(readonly drift: Drift) {
    super(describeDrift(drift));
    this.name = 'ResponseDriftError';
  }
}

const seen: Drift[] = [];

/**
 * Wraps global fetch (what BridgeClient.raw uses): a drifted success body
 * rejects the call, and is also kept for the root hook in case a test swallowed it.
 */
export function installResponseCheck(): void {
  const original = globalThis.fetch as typeof fetch & { responseChecked?: boolean };
  if (original.responseChecked) return;
  const checked = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    const res = await original(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    if (!url.includes(API_PREFIX) || !res.headers.get('content-type')?.startsWith('application/json')) return res;
    const method = (
      init?.method ?? (typeof input === 'object' && 'method' in input ? input.method : 'GET')
    ).toUpperCase();
    const text = await res.clone().text();
    let drift: Drift | undefined;
    try {
      drift = checkAnswer(method, url, res.status, res.headers.get('content-type'), text);
    } catch (e) {
      drift = {
        route: `${method} ${url}`,
        issues: [{ path: '', message: `unparseable JSON: ${(e as Error).message}` }],
      };
    }
    if (drift) {
      seen.push(drift);
      throw new ResponseDriftError(drift);
    }
    return res;
  };
  globalThis.fetch = Object.assign(checked, { responseChecked: true });
}

/** Drifts seen since the last call (the root hook fails the test that caused them). */
export function takeDrifts(): Drift[] {
  return seen.splice(0);
}
