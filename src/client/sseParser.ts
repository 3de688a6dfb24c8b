/** One server-sent event: `event` defaults to 'message'; `id` is the last id seen (SSE keeps it across events). */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * A minimal text/event-stream parser (the WHATWG rules the bridge's
 * GET /events uses): fields per line, a blank line dispatches, `:` lines are
 * comments (heartbeats, passed to `onComment`). Feed it decoded text chunks
 * as they arrive; a line may be split across chunks.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private lastId: string | undefined;
  private afterCr = false;

  constructor(
    private readonly onEvent: (e: ServerSentEvent) => void,
    private readonly onComment?: (text: string) => void,
  ) {}

  push(chunk: string): void {
    // A chunk that ended in \r may have been the first half of \r\n.
    if (this.afterCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCr = false;
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      if (this.buffer[nl] === '\r' && nl === this.buffer.length - 1) this.afterCr = true;
      this.buffer = this.buffer.slice(nl + (this.buffer.startsWith('\r\n', nl) ? 2 : 1));
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length)
        this.onEvent({ event: this.event || 'message', data: this.data.join('\n'), id: this.lastId });
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) {
      this.onComment?.(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
  }
}

/** Reads a fetch body as SSE until it ends or `signal` aborts. */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  onEvent: (e: ServerSentEvent) => void,
  onComment?: (text: string) => void,
): Promise<void> {
  const parser = new SseParser(onEvent, onComment);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
}
