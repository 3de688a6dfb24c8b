import type { deckStats } from '../server/domain/decks/deckStats';
import type { optimizeDeck } from '../server/domain/decks/deckOptimize';
import { BridgeClientError, type BridgeClient } from './bridgeClient';
import type { Success } from './requester';
import { readEventStream } from './sseParser';

/**
 * A deck's statistics and FSRS's optimizer through the client. Functions of
 * their own (as followEvents): the optimizer answers server-sent events,
 * read from fetch's body, not the JSON `request` of the typed APIs.
 */

export type DeckStats = Success & ReturnType<typeof deckStats>;
export type OptimizeResult = Success & Awaited<ReturnType<typeof optimizeDeck>>;
export interface OptimizeProgress {
  stage: 'prepare' | 'fit' | 'score';
  current: number;
  total: number;
  percent: number;
}

const seg = encodeURIComponent;

/** GET /decks/{id}/stats. */
export function fetchDeckStats(
  client: BridgeClient,
  deckId: string,
  query: { forecastDays?: number; historyDays?: number; retrievability?: boolean } = {},
): Promise<DeckStats> {
  return client.request<DeckStats>('GET', `/decks/${seg(deckId)}/stats`, { query });
}

interface ErrorData {
  status?: number;
  error?: { code?: string; message?: string; details?: Record<string, unknown>; retryable?: boolean };
}

const clientError = (status: number, body: ErrorData | undefined, fallback: string) =>
  new BridgeClientError(
    body?.status ?? status,
    body?.error?.code ?? 'HTTP_ERROR',
    body?.error?.message ?? fallback,
    body?.error?.details,
    body?.error?.retryable,
  );

/**
 * POST /decks/{id}/optimize with stream:true: progress events while fsrs-rs fits, then the result.
 * Refusals (too short a history, 503 FSRS_OPTIMIZER_UNAVAILABLE, aborted) throw BridgeClientError;
 * aborting `signal` closes the stream, and the bridge stops the fit.
 */
export async function optimizeDeckStream(
  client: BridgeClient,
  deckId: string,
  opts: { apply: boolean; signal?: AbortSignal; onProgress?: (p: OptimizeProgress) => void },
): Promise<OptimizeResult> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', 'Content-Type': 'application/json' };
  if (client.token) headers.Authorization = `Bearer ${client.token}`;
  const res = await fetch(client.url(`/decks/${seg(deckId)}/optimize`), {
    method: 'POST',
    headers,
    body: JSON.stringify({ apply: opts.apply, stream: true, confirm: true }),
    signal: opts.signal,
  });
  if (!res.ok || !res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text().catch(() => '');
    let body: ErrorData | undefined;
    try {
      body = JSON.parse(text) as ErrorData;
    } catch {
      /* not JSON */
    }
    if (res.ok && body && !body.error) return body as unknown as OptimizeResult;
    throw clientError(res.status, body, text.slice(0, 200));
  }
  let result: OptimizeResult | undefined;
  let failure: BridgeClientError | undefined;
  await readEventStream(res.body, (e) => {
    const data = JSON.parse(e.data) as unknown;
    if (e.event === 'progress') opts.onProgress?.(data as OptimizeProgress);
    else if (e.event === 'result') result = data as OptimizeResult;
    else if (e.event === 'error') failure = clientError(500, data as ErrorData, 'the optimizer failed');
  });
  if (failure) throw failure;
  if (!result) throw new BridgeClientError(502, 'STREAM_ENDED', 'The optimizer stream ended without a result.');
  return result;
}

/** POST /deck-presets: the preset's FSRS weights (the fitted ones, after the person said Apply). */
export function applyFsrsParameters(client: BridgeClient, presetId: string, parameters: number[]) {
  return client.request<Success & { presetId: string; persisted: true }>('POST', '/deck-presets', {
    body: { presetId, options: { fsrsParameters: parameters }, confirm: true },
  });
}
