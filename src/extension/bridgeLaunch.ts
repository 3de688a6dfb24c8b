// How this window starts the bridge it hosts: the settings as the bridge's options, on the worker thread
// (kept for restarts) or, by the setting studyBridge.bridgeThread, on the extension host's main thread.
// BridgeHost decides when to host and what the window does with the bridge once it listens.
import type { RequestLogEntry } from '../server/api/http/app';
import { startInProcessBridge, type HostedBridge } from '../server/worker/hostedBridge';
import type { BridgeWorkerThread } from '../server/worker/workerBridge';
import type { BridgeHostOptions } from './bridgeState';

export interface LaunchHooks {
  onRequest: (e: RequestLogEntry) => void;
  onError: (e: unknown) => void;
  /** The worker thread that hosted `bridge` died after it started (never for the main thread). */
  onLost: (bridge: HostedBridge, err: Error) => void;
}

/** Starts the bridge on `thread` (idle or reused), or on this thread when the setting says 'main'. */
export async function launchBridge(
  thread: BridgeWorkerThread,
  options: BridgeHostOptions,
  hooks: LaunchHooks,
): Promise<HostedBridge> {
  const {
    dataDir,
    port,
    premium,
    exportFolder,
    importFolders,
    ui,
    limits,
    ankiConnect,
    approvals,
    openingPictures,
    thread: where = 'worker',
  } = options;
  const common = {
    dataDir,
    ankiConnect,
    port,
    premium,
    exportFolder,
    importFolders,
    limits,
    approvals,
    openingPictures,
    ui,
    onRequest: hooks.onRequest,
    onError: hooks.onError,
  };
  // A worker that dies after it started takes the bridge with it: `onLost` gets it from this holder.
  const started: { bridge?: HostedBridge } = {};
  const bridge =
    where === 'main'
      ? await startInProcessBridge(common)
      : await thread.start({ ...common, onExit: (err) => started.bridge && hooks.onLost(started.bridge, err) });
  if (where === 'main') void thread.dispose(); // the setting moved the bridge off an idle thread
  started.bridge = bridge;
  return bridge;
}
