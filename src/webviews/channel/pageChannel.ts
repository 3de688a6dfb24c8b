/// <reference lib="dom" />
import { Endpoint } from './endpoint';
import type { ChannelProtocol, Envelope } from './protocol';

/** What VS Code gives a webview page (acquireVsCodeApi may be called once per page). */
export interface VsCodeApi {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

let api: VsCodeApi | undefined;
/** The page's one VS Code API object (the channel posts through it; pages may keep view state in it). */
export const vscodeApi = (): VsCodeApi => (api ??= acquireVsCodeApi());

/** Where the host's messages arrive (the window; a fake one in the unit tests). */
export interface MessageSource {
  addEventListener(type: 'message', listener: (e: { data: unknown }) => void): void;
  removeEventListener(type: 'message', listener: (e: { data: unknown }) => void): void;
}

/**
 * The page's end of its panel's channel. Register the handlers, then call
 * `ready()`: the host sends what it queued, and the current state.
 */
export class PageChannel<P extends ChannelProtocol> extends Endpoint<
  P['pageEvents'],
  P['hostEvents'],
  P['pageRequests'],
  P['hostRequests']
> {
  private readonly listener = (e: { data: unknown }) => this.receive(e.data);

  constructor(
    port: Pick<VsCodeApi, 'postMessage'> = vscodeApi(),
    private readonly source: MessageSource = window,
  ) {
    super({ post: (m: Envelope) => port.postMessage(m), startsReady: true });
    source.addEventListener('message', this.listener);
  }

  /** Tells the host this page listens (on every load). */
  ready(): void {
    this.postNow({ channel: 'ready' });
  }

  override dispose(): void {
    this.source.removeEventListener('message', this.listener);
    super.dispose();
  }
}
