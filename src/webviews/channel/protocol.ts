/**
 * The shape every webview protocol has, and the envelope the channel sends.
 * A page's protocol (beside the page) names its notifications and requests in
 * each direction; the host and the page both import it, so the compiler keeps
 * them in step. Types and tiny guards only: the page bundle and the extension
 * both import this file.
 */

/** A request's parameters and the answer it gets. */
export interface RequestType<P = void, R = void> {
  params: P;
  result: R;
}

export interface ChannelProtocol {
  /** Notifications the host sends the page, by name: their payload (`void`: none). */
  hostEvents: object;
  /** Notifications the page sends the host. */
  pageEvents: object;
  /** Requests the host sends and the page answers. */
  hostRequests: object;
  /** Requests the page sends and the host answers. */
  pageRequests: object;
}

export type ParamsOf<R> = R extends RequestType<infer P, unknown> ? P : never;
export type ResultOf<R> = R extends RequestType<unknown, infer T> ? T : never;
/** A `void` payload is left out of the call: `notify('refresh')`. */
export type PayloadArgs<T> = [T] extends [void] ? [] : [T];

/** What travels through postMessage, in both directions. */
export type Envelope =
  /** The page loaded and listens: the host sends what it queued. */
  | { channel: 'ready' }
  | { channel: 'event'; name: string; data?: unknown }
  | { channel: 'request'; id: number; name: string; params?: unknown }
  | { channel: 'reply'; id: number; ok: true; result?: unknown }
  | { channel: 'reply'; id: number; ok: false; error: { code: string; message: string } };

const isName = (x: unknown): x is string => typeof x === 'string' && x.length > 0;

export function isEnvelope(m: unknown): m is Envelope {
  const o = m as Record<string, unknown> | null;
  if (!o || typeof o !== 'object') return false;
  switch (o.channel) {
    case 'ready':
      return true;
    case 'event':
      return isName(o.name);
    case 'request':
      return Number.isInteger(o.id) && isName(o.name);
    case 'reply':
      return (
        Number.isInteger(o.id) &&
        (o.ok === true || (o.ok === false && typeof (o.error as { message?: unknown } | null)?.message === 'string'))
      );
    default:
      return false;
  }
}

/** A request that failed: the other side's handler threw, it timed out, or the channel closed. */
export class ChannelError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChannelError';
  }
}

/**
 * Checks of what the page sends, one per page notification and request (the
 * host does not trust the page's payloads blindly).
 */
export type PageGuards<P extends ChannelProtocol> = { [K in keyof P['pageEvents']]: (data: unknown) => boolean } & {
  [K in keyof P['pageRequests']]: (params: unknown) => boolean;
};

// Guards' building blocks.
export const isInt = (x: unknown): x is number => Number.isInteger(x);
export const isString = (x: unknown): x is string => typeof x === 'string';
export const anything = (): boolean => true;
/** An object whose listed fields pass their checks. */
export const fields =
  (checks: Record<string, (x: unknown) => boolean>) =>
  (x: unknown): boolean =>
    !!x &&
    typeof x === 'object' &&
    Object.entries(checks).every(([k, check]) => check((x as Record<string, unknown>)[k]));
