/**
 * What the typed APIs (cardsApi.ts, bundlesApi.ts, …) need of the client: its
 * two request methods and their shapes. A file of its own so that
 * bridgeClient.ts, which makes the APIs, and the APIs do not import each other.
 */

export interface Success {
  bridgeApiVersion: string;
  ignoredFields?: string[];
  warnings?: unknown[];
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Raw bytes instead of a JSON body (uploads). */
  bytes?: Uint8Array;
  headers?: Record<string, string>;
  /** Send no Authorization header. */
  anonymous?: boolean;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export interface Requester {
  /** A JSON route; a non-2xx answer throws BridgeClientError with the error body's code. */
  request<T = Success>(method: 'GET' | 'POST', path: string, opts?: RequestOptions): Promise<T>;
  /** Any response, any status. */
  raw(method: 'GET' | 'POST', path: string, opts?: RequestOptions): Promise<RawResponse>;
}
