/**
 * The one error type of the bridge. Services throw it; the error mapper
 * (http/errorMapper.ts) turns it into the error body of DESIGN.md §2.
 */
export class BridgeError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

export const notFound = (code: string, message: string, details?: Record<string, unknown>) =>
  new BridgeError(code, 404, message, details);

export const invalidInput = (message: string, details?: Record<string, unknown>, code = 'INVALID_INPUT') =>
  new BridgeError(code, 422, message, details);

export const conflict = (code: string, message: string, details?: Record<string, unknown>, retryable = false) =>
  new BridgeError(code, 409, message, details, retryable);

/** 429: the caller should retry after `retryAfterSeconds` (also sent as Retry-After). */
export const busy = (code: string, message: string, retryAfterSeconds: number, details?: Record<string, unknown>) =>
  new BridgeError(code, 429, message, { ...details, retryAfterSeconds }, true);

/**
 * 500 SAVE_FAILED (retryable): the write resolved but reading the store back
 * disagrees with it, so `persisted:true` cannot be claimed. The caller re-reads
 * and retries what is missing.
 */
export const saveFailed = (message: string, details?: Record<string, unknown>) => new BridgeError('SAVE_FAILED', 500, message, details, true);
