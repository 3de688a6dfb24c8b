import type * as vscode from 'vscode';
import { Endpoint } from './endpoint';
import type { ChannelProtocol, PageGuards } from './protocol';

/** The part of vscode.Webview the channel uses (a fake one in the unit tests). */
export type WebviewPort = Pick<vscode.Webview, 'postMessage' | 'onDidReceiveMessage'>;

export interface HostChannelOptions<P extends ChannelProtocol> {
  /** A check per page notification and request: the page's payloads are not trusted blindly. */
  guards: PageGuards<P>;
  timeoutMs?: number;
  log?: (message: string) => void;
}

/**
 * The extension's end of a panel's channel: what it sends waits until the
 * page says `ready`; `onReady` runs again when the page reloads (send the
 * current state there: the page keeps none).
 */
export class HostChannel<P extends ChannelProtocol>
  extends Endpoint<P['hostEvents'], P['pageEvents'], P['hostRequests'], P['pageRequests']>
  implements vscode.Disposable
{
  private readonly subscription: vscode.Disposable;

  constructor(webview: WebviewPort, options: HostChannelOptions<P>) {
    const guards = options.guards as Record<string, ((payload: unknown) => boolean) | undefined>;
    super({
      post: (m) => void webview.postMessage(m),
      startsReady: false,
      accepts: (name, payload) => Object.hasOwn(guards, name) && guards[name]!(payload),
      timeoutMs: options.timeoutMs,
      log: options.log,
    });
    this.subscription = webview.onDidReceiveMessage((m: unknown) => this.receive(m));
  }

  override dispose(): void {
    this.subscription.dispose();
    super.dispose();
  }
}
