import type { ServerResponse } from 'node:http';
import { BRIDGE_API_VERSION } from '../../version';
import { errorBody, toBridgeError } from './errorMapper';
import { Hijack } from './routeTable';

/** Reports a long task's stage and (current, total) within it as it goes. */
export type Progress = (stage: string, current: number, total: number) => void;

const message = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A long task answered as server-sent events: `progress` {stage, current,
 * total, percent} as it goes (at most one per stage and percent), then one `result` (the JSON
 * success body the route answers without a stream) or one `error` (the error
 * body). The task is aborted when the client goes away or the bridge closes.
 */
export function progressStream(
  task: (progress: Progress, signal: AbortSignal) => Promise<object>,
  closing: AbortSignal,
): Hijack {
  return new Hijack(async (_req, res: ServerResponse) => {
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'close',
      'X-Accel-Buffering': 'no',
    });
    const send = (text: string) => void (res.writableEnded || res.write(text));
    let shown = '';
    const progress: Progress = (stage, current, total) => {
      const percent = total > 0 ? Math.floor((100 * current) / total) : 0;
      if (`${stage} ${percent}` === shown) return;
      shown = `${stage} ${percent}`;
      send(message('progress', { stage, current, total, percent }));
    };
    try {
      const result = await task(progress, AbortSignal.any([gone.signal, closing]));
      send(message('result', { bridgeApiVersion: BRIDGE_API_VERSION, ...result }));
    } catch (e) {
      const err = toBridgeError(e);
      send(message('error', { status: err.status, ...errorBody(err) }));
    }
    res.end();
  });
}
