import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LibraryEvent, LibraryEvents } from '../../domain/events/libraryEvents';
import { Hijack } from './routeTable';

export interface EventStreamOptions {
  /** A `: ping` comment this often, so proxies and clients see the stream is alive. */
  heartbeatMs: number;
  /** Bytes a slow client may have waiting; past it, it gets one `reset` once it drains instead of the backlog. */
  maxBufferBytes: number;
  /** Ends the stream (the bridge is closing). */
  closing: AbortSignal;
}

/** One SSE message. Only the last message of a revision carries `id:`, so a client cut mid-revision replays all of it. */
function message(event: string, data: unknown, id?: number): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

function lastEventId(req: IncomingMessage): number | undefined | 'invalid' {
  const header = req.headers['last-event-id'];
  const query = new URL(req.url ?? '/', 'http://x').searchParams.get('lastEventId');
  const raw = (Array.isArray(header) ? header[0] : header) ?? query ?? undefined;
  if (raw === undefined || raw === '') return undefined;
  return /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : 'invalid';
}

/**
 * GET /events on the raw response: what a resuming client missed (or one
 * `reset`), then `open` with the current revision, then each committed
 * change as it happens (`revision` for a commit of no library row), with a heartbeat. Ends when the client goes or the
 * bridge closes (`Connection: close`, so closing never waits on the socket).
 */
export function eventStream(events: LibraryEvents, opts: EventStreamOptions): Hijack {
  return new Hijack(
    (req: IncomingMessage, res: ServerResponse) =>
      new Promise<void>((resolve) => {
        res.writeHead(200, {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-store',
          Connection: 'close',
          'X-Accel-Buffering': 'no',
        });
        let overflowed = false;
        const send = (text: string) => {
          if (overflowed || res.writableEnded) return;
          res.write(text);
          if (res.writableLength > opts.maxBufferBytes) {
            overflowed = true;
            res.once('drain', () => {
              overflowed = false;
              send(
                message(
                  'reset',
                  { revision: events.revision, reason: 'slow client: changes were dropped; re-read everything' },
                  events.revision,
                ),
              );
            });
          }
        };
        const liveEvent = (e: LibraryEvent, last: boolean) =>
          message(
            e.kind,
            {
              revision: e.revision,
              ids: e.ids,
              ...(e.truncated ? { truncated: true } : {}),
              ...(e.kind === 'approval' ? { approvalId: e.ids[0], state: e.state } : {}),
            },
            last ? e.revision : undefined,
          );
        const sendAll = (list: readonly LibraryEvent[]) =>
          list.forEach((e, i) => send(liveEvent(e, i === list.length - 1 || list[i + 1].revision !== e.revision)));

        send('retry: 1000\n\n');
        const from = lastEventId(req);
        if (from === 'invalid')
          send(message('reset', { revision: events.revision, reason: 'Last-Event-ID is not a revision' }));
        else if (from !== undefined) {
          const replay = events.since(from);
          if ('reset' in replay)
            send(
              message('reset', {
                revision: events.revision,
                reason: 'Last-Event-ID is older than the kept changes, or from another library',
              }),
            );
          else sendAll(replay.events);
        }
        send(message('open', { revision: events.revision }, events.revision));

        // A commit that changed no library row (bookkeeping) still moves the revision: `revision` keeps ids exact.
        const unsubscribe = events.subscribe((list, revision) =>
          list.length ? sendAll(list) : send(message('revision', { revision }, revision)),
        );
        const heartbeat = setInterval(() => send(': ping\n\n'), opts.heartbeatMs);
        const end = () => res.end();
        opts.closing.addEventListener('abort', end, { once: true });
        if (opts.closing.aborted) end();
        res.once('close', () => {
          clearInterval(heartbeat);
          unsubscribe();
          opts.closing.removeEventListener('abort', end);
          resolve();
        });
      }),
  );
}
