import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { followEvents } from '../client/eventsApi';
import type { ServerSentEvent } from '../client/sseParser';
import { isRouteMissing } from '../views/bridgeTreeProvider';

/** How long one long poll may wait on the server (its maximum is 25 s). */
const POLL_WAIT_MS = 20_000;
/** Pause after a failed poll (bridge restarting, attached host gone), so errors never spin. */
const RETRY_MS = 1_000;

/** The events that mean the views may show something stale (`revision`: bookkeeping only; `open`: caught up). */
const STALE_EVENTS = new Set(['card', 'set', 'deck', 'document', 'bundle', 'reset']);

/**
 * Follows GET /events (server-sent events; resumed with Last-Event-ID after
 * a drop) and fires `onDidChange` when anyone (an agent, this window, another
 * window) wrote to the library, so the views refresh without a manual
 * refresh. Attached to an older bridge without /events, it long-polls
 * GET /library/changes instead. The loop restarts when the bridge's client
 * changes and ends on dispose.
 */
export class LibraryChangeFeed implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<number>();
  /** Fires with the new library revision. */
  readonly onDidChange = this.changed.event;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private disposed = false;
  private lastRevision: number | undefined;
  private readonly approval = new vscode.EventEmitter<{ approvalId: string; state: string }>();
  /** Fires when an agent's call is held for the person, or an approval is decided or expires. */
  readonly onApproval = this.approval.event;

  constructor(
    private readonly getClient: () => BridgeClient | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The last revision seen (tests and diagnostics). */
  get revision(): number | undefined {
    return this.lastRevision;
  }

  /** (Re)starts the loop on the current client; a running loop is stopped first. */
  async restart(): Promise<void> {
    await this.stop();
    const client = this.getClient();
    if (this.disposed || !client) return;
    const abort = (this.abort = new AbortController());
    this.loop = this.follow(client, abort.signal);
  }

  /** Ends the loop and its pending request (the server lets go of the wait at once). */
  async stop(): Promise<void> {
    this.abort?.abort();
    this.abort = undefined;
    const loop = this.loop;
    this.loop = undefined;
    await loop;
  }

  private async follow(client: BridgeClient, signal: AbortSignal): Promise<void> {
    let lastEventId: string | undefined;
    let fired = 0;
    while (!signal.aborted) {
      try {
        await followEvents(client, {
          lastEventId,
          signal,
          onEvent: (e) => {
            if (e.id) lastEventId = e.id;
            if (e.event === 'approval') this.approval.fire(JSON.parse(e.data) as { approvalId: string; state: string });
            const revision = revisionOf(e);
            if (revision === undefined) return;
            this.lastRevision = revision;
            // One refresh per revision (a batch sends one event per kind), none for the first `open`.
            if (STALE_EVENTS.has(e.event) && revision > fired) {
              fired = revision;
              this.changed.fire(revision);
            }
          },
        });
      } catch (err) {
        if (signal.aborted) return;
        if (isRouteMissing(err)) {
          this.log.info('change feed: this bridge has no GET /events; long-polling GET /library/changes');
          return this.poll(client, signal);
        }
        this.log.debug(`change feed: ${err instanceof Error ? err.message : String(err)}; reconnecting`);
      }
      // The stream ended (the bridge restarted or closed): reconnect, resuming after the last id.
      await sleep(RETRY_MS, signal);
    }
  }

  /** The long poll, for bridges from before GET /events. */
  private async poll(client: BridgeClient, signal: AbortSignal): Promise<void> {
    let since: number | undefined;
    while (!signal.aborted) {
      try {
        // First call: the current revision, without waiting (the views were just loaded).
        const res = await client.cards.changes(since ?? 0, since === undefined ? 0 : POLL_WAIT_MS, signal);
        if (signal.aborted) return;
        const first = since === undefined;
        since = res.revision;
        this.lastRevision = res.revision;
        if (res.changed && !first) this.changed.fire(res.revision);
      } catch (err) {
        if (signal.aborted) return;
        if (isRouteMissing(err)) {
          this.log.info('change feed: this bridge has no GET /library/changes; views refresh on demand only');
          return;
        }
        this.log.debug(`change feed: ${err instanceof Error ? err.message : String(err)}; retrying`);
        await sleep(RETRY_MS, signal);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    void this.stop();
    this.changed.dispose();
    this.approval.dispose();
  }
}

function revisionOf(e: ServerSentEvent): number | undefined {
  try {
    const revision = (JSON.parse(e.data) as { revision?: unknown }).revision;
    return typeof revision === 'number' ? revision : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
