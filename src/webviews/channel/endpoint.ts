import { ChannelError, isEnvelope, type Envelope, type ParamsOf, type PayloadArgs, type ResultOf } from './protocol';

/** How long a request waits for its reply unless the caller says otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface RequestOptions {
  timeoutMs?: number;
}
/** A request without parameters takes none: `request('getSelection')`. */
type RequestArgs<R> = [ParamsOf<R>] extends [void]
  ? [params?: undefined, options?: RequestOptions]
  : [params: ParamsOf<R>, options?: RequestOptions];

export interface EndpointOptions {
  /** Sends one envelope to the other side. */
  post(m: Envelope): void;
  /** The page is ready from its start (the host listens before it loads); the host waits for the page's `ready`. */
  startsReady: boolean;
  /** Checks an incoming payload by name; false drops the notification or refuses the request. */
  accepts?(name: string, payload: unknown): boolean;
  timeoutMs?: number;
  /** Where dropped or refused messages are reported. */
  log?(message: string): void;
}

interface Pending {
  name: string;
  resolve(result: unknown): void;
  reject(err: ChannelError): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * One side of the typed host↔page channel (docs/ARCHITECTURE.md, the webview
 * channel): notifications both ways, requests by id with one reply each
 * (an answer or an error; a timeout), a queue until the page is ready, and
 * disposal that rejects what is still waiting. `SendEv`/`SendReq` are what
 * this side sends, `RecvEv`/`RecvReq` what it receives. The transport (VS
 * Code's webview or acquireVsCodeApi) is the subclasses' business.
 */
export class Endpoint<SendEv extends object, RecvEv extends object, SendReq extends object, RecvReq extends object> {
  private listening: boolean;
  private readonly queue: Envelope[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(data: unknown) => void>>();
  private readonly handlers = new Map<string, (params: unknown) => unknown>();
  private readonly readyListeners = new Set<() => void>();
  private disposed = false;

  constructor(private readonly options: EndpointOptions) {
    this.listening = options.startsReady;
  }

  /** True once the page said `ready` (always, on the page's side). */
  get isReady(): boolean {
    return this.listening;
  }

  notify<K extends keyof SendEv & string>(name: K, ...data: PayloadArgs<SendEv[K]>): void {
    this.send({ channel: 'event', name, data: data[0] });
  }

  /** Sends a request; resolves with the reply's result, rejects with a ChannelError (the handler's code, TIMEOUT, DISPOSED…). */
  request<K extends keyof SendReq & string>(
    name: K,
    ...[params, options = {}]: RequestArgs<SendReq[K]>
  ): Promise<ResultOf<SendReq[K]>> {
    if (this.disposed) return Promise.reject(new ChannelError('DISPOSED', `${name}: the channel is closed`));
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ChannelError('TIMEOUT', `${name}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { name, resolve, reject, timer });
      this.send({ channel: 'request', id, name, params });
    });
  }

  /** Listens to a notification; returns the way to stop. */
  on<K extends keyof RecvEv & string>(name: K, listener: (data: RecvEv[K]) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    const l = listener as (data: unknown) => void;
    set.add(l);
    return () => set.delete(l);
  }

  /** Answers a request: the handler's value is the reply; what it throws is an error reply (its `code`, else ERROR). */
  handle<K extends keyof RecvReq & string>(
    name: K,
    handler: (params: ParamsOf<RecvReq[K]>) => ResultOf<RecvReq[K]> | Promise<ResultOf<RecvReq[K]>>,
  ): void {
    this.handlers.set(name, handler as (params: unknown) => unknown);
  }

  /** Runs whenever the page says `ready` (its first load and every reload): the place to send the current state. */
  onReady(listener: () => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /** Takes one message from the other side (anything that is not an envelope is ignored). */
  receive(raw: unknown): void {
    if (this.disposed || !isEnvelope(raw)) return;
    switch (raw.channel) {
      case 'ready':
        return this.peerReady();
      case 'event': {
        if (!this.accepts(raw.name, raw.data)) return;
        for (const l of [...(this.listeners.get(raw.name) ?? [])]) l(raw.data);
        return;
      }
      case 'request':
        return void this.answer(raw.id, raw.name, raw.params);
      case 'reply': {
        const p = this.pending.get(raw.id);
        if (!p) return;
        this.pending.delete(raw.id);
        clearTimeout(p.timer);
        if (raw.ok) p.resolve(raw.result);
        else p.reject(new ChannelError(raw.error.code || 'ERROR', raw.error.message));
        return;
      }
    }
  }

  /** Rejects what still waits (DISPOSED), drops the queue; later sends do nothing. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.queue.length = 0;
    this.rejectPending('DISPOSED', 'the channel was closed');
    this.listeners.clear();
    this.handlers.clear();
    this.readyListeners.clear();
  }

  /** Posts an envelope now, bypassing the queue (the page's own `ready`). */
  protected postNow(m: Envelope): void {
    if (!this.disposed) this.options.post(m);
  }

  private send(m: Envelope): void {
    if (this.disposed) return;
    if (this.listening) this.options.post(m);
    else this.queue.push(m); // sent in order once the page says ready
  }

  private peerReady(): void {
    // A second `ready` is a reloaded page: what the old one was asked will never be answered.
    if (this.listening) this.rejectPending('PAGE_RELOADED', 'the page reloaded before answering');
    this.listening = true;
    for (const m of this.queue.splice(0)) this.options.post(m);
    for (const l of [...this.readyListeners]) l();
  }

  private async answer(id: number, name: string, params: unknown): Promise<void> {
    const handler = this.handlers.get(name);
    const fail = (code: string, message: string) =>
      this.send({ channel: 'reply', id, ok: false, error: { code, message } });
    if (!handler) return fail('NO_HANDLER', `nobody answers ${name}`);
    if (!this.accepts(name, params)) return fail('BAD_REQUEST', `${name}: malformed parameters`);
    try {
      const result = await handler(params);
      this.send({ channel: 'reply', id, ok: true, result });
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      fail(typeof code === 'string' && code ? code : 'ERROR', err instanceof Error ? err.message : String(err));
    }
  }

  private accepts(name: string, payload: unknown): boolean {
    if (!this.options.accepts || this.options.accepts(name, payload)) return true;
    this.options.log?.(`webview channel: dropped a malformed ${name}`);
    return false;
  }

  private rejectPending(code: string, message: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new ChannelError(code, `${p.name}: ${message}`));
    }
  }
}
