/**
 * The one error type of the bridge. Services throw it; the error mapper
 * (http/errorMapper.ts) turns it into the error body of docs/CONTRACT-CHOICES.md ("Errors").
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
export const saveFailed = (message: string, details?: Record<string, unknown>) =>
  new BridgeError('SAVE_FAILED', 500, message, details, true);

/** True for the errno codes a full disk or an exhausted quota give. */
export const isNoSpace = (e: unknown): boolean => {
  const code = (e as { code?: unknown })?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
};

/**
 * 507 INSUFFICIENT_STORAGE (retryable): a write failed for space and did not
 * take effect. `freeBytes` is what the data dir's file system had left.
 */
export const insufficientStorage = (what: string, freeBytes: number | undefined, details?: Record<string, unknown>) =>
  new BridgeError(
    'INSUFFICIENT_STORAGE',
    507,
    `${what} failed: the disk holding the library is full. Nothing was written; free some space and retry.`,
    { ...details, ...(freeBytes === undefined ? {} : { freeBytes }) },
    true,
  );
