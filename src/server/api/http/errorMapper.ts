import type { Context, Next } from 'koa';
import { BridgeError, insufficientStorage, isNoSpace } from '../../errors';
import { heldByAnother } from '../../ground/store/renameReplacing';
import { BRIDGE_API_VERSION } from '../../version';
import { lingerIfBodyPending } from './lingeringClose';

/** Anything thrown becomes a BridgeError; unknown errors become a bare 500. */
export function toBridgeError(e: unknown): BridgeError {
  if (e instanceof BridgeError) return e;
  const err = e as { status?: number; type?: string; expose?: boolean; message?: string };
  if (err?.status === 413 || err?.type === 'entity.too.large') {
    return new BridgeError('PAYLOAD_TOO_LARGE', 413, 'The request body is larger than this route accepts.');
  }
  // A full disk anywhere below a route is the caller's retryable 507, not a 500.
  if (isNoSpace(e)) return insufficientStorage('The write', undefined);
  // The disk failing (not the bridge) is a retryable 503 the caller can act on, not an anonymous 500.
  const errno = (e as { code?: unknown })?.code;
  if (errno === 'EIO' || errno === 'EROFS') {
    return new BridgeError(
      'STORAGE_IO_ERROR',
      503,
      `The disk holding the library reported ${errno} during this call. It may not have taken effect: check with a read route, then retry; if it persists, check the disk.`,
      { errno },
      true,
    );
  }
  // Windows: another program held a file the write had to replace, through every retry (renameReplacing.ts).
  if (heldByAnother(e) && (e as { syscall?: unknown }).syscall === 'rename') {
    return new BridgeError(
      'FILE_IN_USE',
      503,
      'Another program holds a file of the library open (a backup, an antivirus scan, a viewer), so this write could not replace it. Nothing was changed: retry in a moment.',
      { errno },
      true,
    );
  }
  if (err?.type === 'request.aborted')
    return new BridgeError('REQUEST_ABORTED', 400, 'The client aborted the request.');
  if (err?.status && err.status >= 400 && err.status < 500 && err.expose) {
    return new BridgeError('BAD_REQUEST', err.status, String(err.message));
  }
  return new BridgeError(
    'INTERNAL',
    500,
    'Internal bridge error. The request may not have taken effect; check with a read route.',
    undefined,
    true,
  );
}

export function errorBody(err: BridgeError) {
  return {
    error: {
      code: err.code,
      message: err.message,
      retryable: err.retryable,
      ...(err.details ? { details: err.details } : {}),
    },
    bridgeApiVersion: BRIDGE_API_VERSION,
  };
}

/**
 * The log line of a 5xx answer. Only an unexpected error is "internal" and
 * carries its stack; a BridgeError thrown on purpose (501, SAVE_FAILED, a busy
 * worker...) is an ordinary error line: its code says all there is.
 */
export function serverErrorLine(e: unknown): string {
  if (e instanceof BridgeError) return `error: ${e.status} ${e.code}: ${e.message}`;
  return `internal error: ${(e as Error)?.stack ?? String(e)}`;
}

/**
 * The one error mapper: top of the middleware stack. Also maps an unmatched
 * route to 404 NOT_FOUND. `onInternal` sees the original of every 5xx (for the
 * log, through serverErrorLine); the body never carries a stack.
 */
export function errorMapper(onInternal: (e: unknown) => void) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new BridgeError(
          'NOT_FOUND',
          404,
          `No route ${ctx.method} ${ctx.path}. GET /bridge/v1/capabilities lists the routes.`,
        );
      }
    } catch (e) {
      const err = toBridgeError(e);
      if (err.status >= 500) onInternal(e);
      lingerIfBodyPending(ctx.req);
      ctx.status = err.status;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = errorBody(err);
      if (err.status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="study-bridge"');
      const retryAfter = err.details?.retryAfterSeconds;
      if ((err.status === 429 || (err.status === 409 && err.retryable)) && retryAfter !== undefined) {
        ctx.set('Retry-After', String(Math.ceil(Number(retryAfter))));
      }
    }
  };
}
