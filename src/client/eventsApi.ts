import { BridgeClientError, type BridgeClient } from './bridgeClient';
import { readEventStream, type ServerSentEvent } from './sseParser';

export interface FollowEventsOptions {
  /** The last `id:` seen: the bridge replays what came after it (or sends `reset`). */
  lastEventId?: string;
  signal: AbortSignal;
  onEvent: (e: ServerSentEvent) => void;
}

/**
 * Follows GET /events until the stream ends (the bridge closed) or `signal`
 * aborts (then it rejects with the abort). A refusal (404 on a bridge
 * without the route, 401) throws BridgeClientError before any event.
 */
export async function followEvents(client: BridgeClient, opts: FollowEventsOptions): Promise<void> {
  const headers: Record<string, string> = { Accept: 'text/event-stream' };
  if (client.token) headers.Authorization = `Bearer ${client.token}`;
  if (opts.lastEventId) headers['Last-Event-ID'] = opts.lastEventId;
  const res = await fetch(client.url('/events'), { headers, signal: opts.signal });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    let err: { code?: string; message?: string } | undefined;
    try {
      err = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    } catch {
      /* not JSON */
    }
    throw new BridgeClientError(res.status, err?.code ?? 'HTTP_ERROR', err?.message ?? text.slice(0, 200));
  }
  await readEventStream(res.body, opts.onEvent);
}
