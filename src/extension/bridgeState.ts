// What the window's bridge is and where it runs, as BridgeHost reports it
// (the status bar, the MCP provider and the settings read these).
import type { BridgeOptions } from '../server/bridge';
import type { CodeCacheState } from '../server/ground/threads/codeCache';

/**
 * What BridgeHost is doing:
 * starting – looking for the data dir's bridge, or starting ours
 * hosting  – this extension host runs the server (lock held, bridge.json ours)
 * attached – another process holds the lock; we talk to it as a client
 * stopped  – nothing runs (after deactivate or before start)
 * error    – start failed; `error` says why
 */
export type BridgeMode = 'starting' | 'hosting' | 'attached' | 'stopped' | 'error';

/**
 * Where a hosted bridge runs: a worker thread of this extension host (the
 * default: a checkpoint or a big import never blocks the window), or its
 * main thread (setting studyBridge.bridgeThread, for comparison).
 */
export type BridgeThread = 'worker' | 'main';

/** What this window asks of the bridge it hosts (settings plus its UI). */
export type BridgeHostOptions = Pick<
  BridgeOptions,
  | 'dataDir'
  | 'port'
  | 'premium'
  | 'exportFolder'
  | 'importFolders'
  | 'ui'
  | 'limits'
  | 'ankiConnect'
  | 'approvals'
  | 'openingPictures'
> & { thread?: BridgeThread };

export interface BridgeState {
  mode: BridgeMode;
  dataDir: string;
  baseUrl?: string;
  port?: number;
  /** pid of the process that hosts the server (ours when hosting). */
  hostPid?: number;
  instanceNonce?: string;
  /** When hosting: the thread the server runs on, and its threadId (0 = the main thread). */
  thread?: BridgeThread;
  threadId?: number;
  /** When hosting in a worker: how it loaded the server bundle through V8's code cache. */
  codeCache?: CodeCacheState;
  /** When hosting: ms from asking for the bridge (worker thread started, or reused) to its listening. */
  startMs?: number;
  error?: string;
}
