import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { RequestLogEntry } from '../server/api/http/app';
import { readDiscovery, type DiscoveryFile } from '../server/discovery';
import { hostGone, probeHost } from './hostProbe';
import { dropKeptLock } from '../server/worker/threadClaims';
import { BridgeClient } from '../client/bridgeClient';
import type { HostedBridge } from '../server/worker/hostedBridge';
import { BridgeWorkerThread } from '../server/worker/workerBridge';
import type { CheckpointResult } from '../server/worker/protocol';
import { clearRestarting, markRestarting, restartingHost } from './restartMarker';
import type { BridgeHostOptions, BridgeState } from './bridgeState';
import { launchBridge } from './bridgeLaunch';

/** How often an attached window checks whether the host is still alive. */
const WATCH_INTERVAL_MS = 1000;
/** Attempts to attach when the lock is held but bridge.json is not there yet (the host is starting). */
const ATTACH_ATTEMPTS = 20;

/**
 * Hosts the bridge in this window, or attaches to the one another window
 * hosts on the same data dir, and takes over when that window goes away.
 */
export class BridgeHost implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<BridgeState>();
  /** Fires on every mode or address change. */
  readonly onDidChange = this.changed.event;
  private readonly requested = new vscode.EventEmitter<RequestLogEntry>();
  /** Fires for each request the server in this window answered. */
  readonly onRequest = this.requested.event;

  private bridge: HostedBridge | undefined;
  /** The worker thread bridges run in; it outlives a restart (only the store is reopened). */
  private readonly thread: BridgeWorkerThread;
  private clientInstance: BridgeClient | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private current: BridgeState;
  private transition: Promise<void> = Promise.resolve();
  private disposed = false;
  private disposing: Promise<void> | undefined;

  private options: BridgeHostOptions;

  /**
   * `readOptions` reads the settings: at each start, so a window taking over hosts with what they say now.
   * `thread.codeCacheDir`: where a new worker thread keeps V8's code of the server bundle (server/ground/threads/codeCache.ts).
   */
  constructor(
    private readonly readOptions: () => BridgeHostOptions,
    private readonly log: vscode.LogOutputChannel,
    thread: { codeCacheDir?: string } = {},
  ) {
    this.thread = new BridgeWorkerThread(thread);
    this.options = readOptions();
    this.current = { mode: 'stopped', dataDir: this.options.dataDir };
  }

  get state(): BridgeState {
    return this.current;
  }

  /** Client for the bridge in use (ours or the attached one); undefined when stopped. */
  get client(): BridgeClient | undefined {
    return this.clientInstance;
  }

  /** Resolves once the state is settled (hosting, attached or error). */
  start(): Promise<void> {
    return this.serialize(() => this.startNow());
  }

  /** Stops (releasing the data dir when hosting) and starts again with the settings as they are now. */
  restart(): Promise<void> {
    return this.serialize(async () => {
      // Attached windows must wait for this window to host again, not take over in the gap (restartMarker.ts).
      // The lock file stays ours through the gap too, so no other process (a headless `serve`) takes the data dir.
      const { dataDir } = this.options;
      const handing = this.current.mode === 'hosting';
      if (handing) markRestarting(dataDir);
      try {
        await this.stopNow({ keepLock: handing, keepThread: true });
        await this.startNow();
      } finally {
        if (handing) {
          // Left alone when our new bridge took the lock back; dropped when the start failed, or when the
          // setting was the data dir itself and the new bridge serves another one.
          dropKeptLock(dataDir);
          clearRestarting(dataDir);
        }
      }
    });
  }

  stop(): Promise<void> {
    return this.serialize(() => this.stopNow());
  }

  /**
   * Every caller gets the same promise: VS Code disposes the subscriptions
   * (our safety net among them) while deactivate() is still awaiting, and
   * deactivate must not resolve (letting the host exit) before the close did.
   */
  dispose(): Promise<void> {
    return (this.disposing ??= (async () => {
      this.disposed = true;
      await this.serialize(() => this.stopNow({ within: 1_500 })); // the window closes: over within 2 s, thread end included
      this.changed.dispose();
      this.requested.dispose();
    })());
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    const next = this.transition.then(step, step);
    this.transition = next.catch(() => undefined);
    return next;
  }

  private setState(state: BridgeState): void {
    this.current = state;
    if (!this.disposed || state.mode === 'stopped') this.changed.fire(state);
  }

  private async startNow(): Promise<void> {
    if (this.disposed) return;
    this.options = this.readOptions();
    const { dataDir } = this.options;
    this.setState({ mode: 'starting', dataDir });
    for (let attempts = 0; !this.disposed;) {
      // Another window restarting its bridge (restartMarker.ts) hosts again in a moment: never take the data dir
      // from it in the gap, and wait for it however long its close and start take (the marker's age bounds it).
      const restarting = restartingHost(dataDir);
      const othersRestart = restarting !== undefined && restarting !== process.pid;
      if (!othersRestart) {
        try {
          await this.host();
          return;
        } catch (err) {
          if (!isLockedError(err)) {
            this.fail(err);
            return;
          }
        }
      }
      // Another live process owns the data dir: attach to it.
      if (await this.attach()) return;
      if (!othersRestart && ++attempts >= ATTACH_ATTEMPTS) break;
      await delay(250);
    }
    if (!this.disposed)
      this.fail(new Error(`the data dir ${dataDir} is locked by another process that does not answer`));
  }

  private async host(): Promise<void> {
    const { dataDir } = this.options;
    const t0 = performance.now();
    const bridge = await launchBridge(this.thread, this.options, {
      onRequest: (e) => this.requested.fire(e),
      onError: (e) =>
        this.log.error(`bridge: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
      onLost: (lost, err) => this.lost(lost, err),
    });
    if (this.disposed) {
      await bridge.close();
      return;
    }
    this.bridge = bridge;
    // The person's edits: the operation log records them as the user's.
    this.clientInstance = new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token });
    const startMs = Math.round(performance.now() - t0);
    const cache = bridge.codeCache ? `, code cache ${bridge.codeCache}` : '';
    this.log.info(
      `hosting the bridge at ${bridge.baseUrl} on the ${bridge.thread} thread (threadId ${bridge.threadId}; data dir ${dataDir}; started in ${startMs} ms${cache})`,
    );
    this.setState({
      mode: 'hosting',
      dataDir,
      baseUrl: bridge.baseUrl,
      port: bridge.port,
      hostPid: process.pid,
      instanceNonce: bridge.instanceNonce,
      thread: bridge.thread,
      threadId: bridge.threadId,
      codeCache: bridge.codeCache,
      startMs,
    });
  }

  /** The worker that hosted `bridge` died: nothing serves any more (the status bar offers Restart). */
  private lost(bridge: HostedBridge, err: Error): void {
    void this.serialize(async () => {
      if (this.bridge !== bridge) return;
      this.bridge = undefined;
      this.clientInstance = undefined;
      this.fail(err);
    });
  }

  /** Checkpoints the bridge this window hosts now (tests measure what that costs the window). */
  checkpoint(): Promise<CheckpointResult> {
    if (!this.bridge) return Promise.reject(new Error(`the bridge is ${this.current.mode}, not hosted here`));
    return this.bridge.checkpoint();
  }

  /** Attaches to the bridge that bridge.json names, if it answers with the same instance nonce. */
  private async attach(): Promise<boolean> {
    const { dataDir } = this.options;
    const found = await probeHost(dataDir, this.log);
    if (!found) return false;
    const { discovery, client } = found;
    if (this.disposed) return true;
    void this.thread.dispose(); // another process serves: an idle thread of ours has nothing to do
    this.clientInstance = client;
    this.log.info(`attached to the bridge at ${discovery.baseUrl}, hosted by process ${discovery.pid}`);
    this.setState({
      mode: 'attached',
      dataDir,
      baseUrl: discovery.baseUrl,
      port: discovery.port,
      hostPid: discovery.pid,
      instanceNonce: discovery.instanceNonce,
    });
    this.watchHost(discovery);
    return true;
  }

  /** While attached: when the hosting process goes away (or its bridge.json does), take over. */
  private watchHost(discovery: DiscoveryFile): void {
    this.clearWatch();
    this.watchTimer = setInterval(() => {
      if (this.current.mode !== 'attached') return;
      if (!hostGone(this.options.dataDir, discovery)) return;
      this.clearWatch();
      void this.serialize(async () => {
        if (this.current.mode !== 'attached' || this.disposed) return;
        this.clientInstance = undefined;
        if (await this.awaitRestartedHost(discovery)) return;
        this.log.info(`the bridge hosted by process ${discovery.pid} went away; taking over`);
        await this.startNow();
      });
    }, WATCH_INTERVAL_MS);
  }

  /** While the host says it is restarting (restartMarker.ts), waits for its new bridge and attaches to it. */
  private async awaitRestartedHost(previous: DiscoveryFile): Promise<boolean> {
    const { dataDir } = this.options;
    let logged = false;
    while (!this.disposed && restartingHost(dataDir) === previous.pid) {
      if (!logged) this.log.info(`the bridge hosted by process ${previous.pid} is restarting; waiting for it`);
      logged = true;
      const now = readDiscovery(dataDir);
      if (now && now.instanceNonce !== previous.instanceNonce && (await this.attach())) return true;
      await delay(250);
    }
    return false;
  }

  private clearWatch(): void {
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.watchTimer = undefined;
  }

  private fail(err: unknown): void {
    const message = errorText(err);
    this.log.error(`the bridge could not start: ${message}`);
    this.setState({ mode: 'error', dataDir: this.options.dataDir, error: message });
  }

  /** `keepThread`: a restart reuses the idle worker thread; any other stop ends it. */
  private async stopNow(opts?: { keepLock?: boolean; keepThread?: boolean; within?: number }): Promise<void> {
    this.clearWatch();
    this.clientInstance = undefined;
    const bridge = this.bridge;
    this.bridge = undefined;
    if (bridge) {
      try {
        await bridge.close(opts);
        this.log.info('bridge closed (checkpoint written, lock released)');
      } catch (err) {
        this.log.error(`closing the bridge failed: ${errorText(err)}`);
      }
    }
    if (!opts?.keepThread) await this.thread.dispose();
    this.setState({ mode: 'stopped', dataDir: this.options.dataDir });
  }
}

function isLockedError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'DATA_DIR_LOCKED';
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
