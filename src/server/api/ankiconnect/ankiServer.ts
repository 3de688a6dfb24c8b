import Koa from 'koa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BridgeError } from '../../errors';
import { toBridgeError } from '../http/errorMapper';
import { lingerIfBodyPending } from '../http/lingeringClose';
import { loopbackGuard } from '../http/loopbackGuard';
import { readBytes } from '../http/requestBody';
import { refuseUnstorable } from '../http/storableText';
import { dispatch, type DispatchDeps } from './ankiDispatch';

/**
 * AnkiConnect's protocol (v6) at the root of a second loopback port, for the
 * tools that speak it (Yomitan, Obsidian_to_Anki, scripts). The same Host
 * rule as the main port; a browser Origin is refused with 403 unless listed
 * (or granted by the person through requestPermission, for this run), and
 * only requestPermission is answered to an origin not listed. Listed origins
 * get CORS headers, their preflights too; an unlisted origin's preflight is
 * refused as its POST would be (as AnkiConnect, whose webCorsOriginList is
 * only http://localhost by default): such a page asks requestPermission with
 * a simple request (text/plain), which needs no preflight. Text the store
 * cannot hold is refused as on the REST port (422 UNSTORABLE_TEXT).
 */

export interface AnkiServerOptions {
  port: number;
  /** Origins allowed in, e.g. Yomitan's chrome-extension://… origin. */
  allowedOrigins: readonly string[];
  /** Largest request (storeMediaFile carries files as base64). */
  bodyLimitBytes: number;
  /** Asks the person whether `origin` may use AnkiConnect; undefined: nobody to ask (headless), denied. */
  ask?: (origin: string) => Promise<boolean>;
}

export interface AnkiServer {
  port: number;
  close(): Promise<void>;
}

const forbidden = (origin: string) =>
  new BridgeError(
    'FORBIDDEN_ORIGIN',
    403,
    `Origin ${origin} may not use AnkiConnect here: ask the person to list it in studyBridge.ankiConnect.allowedOrigins (CLI --ankiconnect-allowed-origins), or call requestPermission first.`,
  );

const reply = (ctx: Koa.Context, status: number, body: unknown) => {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify(body);
};

/** CORS for listed origins, the GET banner, and each POST parsed and dispatched; refusals are thrown to the error middleware. */
function answerRequests(opts: AnkiServerOptions, deps: DispatchDeps, allowed: ReadonlySet<string>): Koa.Middleware {
  return async (ctx) => {
    const origin = ctx.get('Origin') || undefined;
    const listed = origin === undefined || allowed.has(origin);
    if (origin && listed) ctx.set({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin' });
    if (ctx.method === 'OPTIONS') {
      if (!listed) throw forbidden(origin);
      if (origin) ctx.set({ 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'Content-Type' });
      ctx.status = 204;
      return;
    }
    if (!listed && ctx.method !== 'POST') throw forbidden(origin);
    if (ctx.method === 'GET') {
      ctx.type = 'text/plain';
      ctx.body = 'AnkiConnect v.6';
      return;
    }
    if (ctx.method !== 'POST')
      throw new BridgeError(
        'METHOD_NOT_ALLOWED',
        405,
        'AnkiConnect takes POST requests with a JSON body {action, version, params, key}.',
      );
    const text = (await readBytes(ctx, opts.bodyLimitBytes)).toString('utf8');
    let body: unknown;
    try {
      body = text.trim() ? JSON.parse(text) : {};
    } catch (e) {
      return reply(ctx, 200, { result: null, error: `the request is not valid JSON: ${(e as Error).message}` });
    }
    refuseUnstorable(body, 'body', text);
    const action = (body as { action?: unknown })?.action;
    if (!listed && action !== 'requestPermission') throw forbidden(origin);
    if (origin && !listed) ctx.set({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }); // the page reads its permission answer
    const answer = await dispatch(deps, body, origin);
    reply(ctx, answer.status, answer.body);
  };
}

/** Listens on 127.0.0.1:`port`; a port taken (Anki itself, often) is PORT_UNAVAILABLE. */
async function listenLoopback(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((e) => {
    throw new BridgeError(
      'PORT_UNAVAILABLE',
      500,
      `Cannot serve AnkiConnect on 127.0.0.1:${port}: ${(e as Error).message} (is Anki itself running there?).`,
    );
  });
}

export async function startAnkiServer(
  opts: AnkiServerOptions,
  deps: Omit<DispatchDeps, 'permission'>,
): Promise<AnkiServer> {
  const allowed = new Set(opts.allowedOrigins.map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean));
  let port = 0;
  const permission = async (origin: string | undefined) => {
    if (origin === undefined || allowed.has(origin)) return true;
    if (!opts.ask || !(await opts.ask(origin).catch(() => false))) return false;
    allowed.add(origin);
    return true;
  };
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (e) {
      const err = toBridgeError(e);
      if (err.status >= 500) deps.onError(e);
      lingerIfBodyPending(ctx.req);
      // AnkiConnect's shape (exactly two fields: clients check), the status saying what kind of refusal.
      reply(ctx, err.status, { result: null, error: `${err.code}: ${err.message}` });
    }
  });
  app.use(loopbackGuard(() => port, { originChecked: true }));
  app.use(answerRequests(opts, { ...deps, permission }, allowed));
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  server.keepAliveTimeout = 5000;
  await listenLoopback(server, opts.port);
  port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref(); // as the main port: a stop within 2 s
      }),
  };
}
