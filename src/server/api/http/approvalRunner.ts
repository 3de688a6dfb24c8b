import { Readable } from 'node:stream';
import { BridgeError } from '../../errors';
import type { ApprovalRunner } from '../../domain/approvals/approvalService';
import { BRIDGE_API_VERSION } from '../../version';
import { errorBody, toBridgeError } from './errorMapper';
import { effectiveSchemas, validate } from './routeMiddleware';
import { Hijack, Reply, type RouteDecl, type RouteServices } from './routeTable';

/**
 * Runs an allowed call once, as the agent that asked (its token's actor, so
 * the operation log names that agent): validated again against the route,
 * then its handler. Every answer, refusals included, is the approval's result.
 */
export function approvalRunner(routes: readonly RouteDecl[], services: RouteServices): ApprovalRunner {
  const byKey = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  return async (request, tokenId) => {
    try {
      const route = byKey.get(`${request.method} ${request.path}`);
      if (!route)
        throw new BridgeError(
          'ROUTE_GONE',
          410,
          `${request.method} ${request.path} is no longer a route of this bridge; the call was not run.`,
        );
      const caller = services.tokens.callerOf(tokenId);
      if (!caller)
        throw new BridgeError(
          'UNAUTHORIZED',
          401,
          'The agent token that asked was revoked before the call was allowed; it was not run.',
          { tokenId },
        );
      const schemas = effectiveSchemas(route);
      const input = {
        params: validate(schemas.params, request.params, 'params'),
        query: validate(schemas.query, request.query, 'query'),
        body: validate(schemas.body, request.body, 'body'),
        raw: Buffer.alloc(0),
        bodyStream: Readable.from([]),
        authorized: true,
        confirmed: true,
        services,
        actor: caller.actor,
        caller,
        bearer: undefined,
        signal: services.closing,
      };
      const result = await route.handler(input);
      if (result instanceof Hijack) throw new BridgeError('NOT_HELD', 500, 'This route cannot run from an approval.');
      if (result instanceof Reply)
        return { status: result.status, body: { contentType: result.contentType, bytes: result.body.length } };
      return { status: 200, body: { bridgeApiVersion: BRIDGE_API_VERSION, ...result } };
    } catch (e) {
      const err = toBridgeError(e);
      return { status: err.status, body: errorBody(err) };
    }
  };
}
