// Messages between the thread that hosts the window (main) and the bridge
// worker. Everything crosses by structured clone: plain data only.
import type { RequestLogEntry } from '../api/http/app';
import type { BridgeLimits } from '../config';
import type { StoreOptions } from '../ground/store/store';
import type { CodeCacheState } from '../ground/threads/codeCache';

/** BridgeOptions that can cross a thread (no UI object, no callbacks). */
export interface WorkerBridgeOptions {
  dataDir: string;
  port?: number;
  premium?: boolean;
  exportFolder?: string;
  importFolders?: string[];
  limits?: Partial<BridgeLimits>;
  store?: StoreOptions;
  ankiConnect?: { port: number; allowedOrigins?: string[] };
  /** Render each new book's first page for the reader (BridgeOptions.openingPictures). */
  openingPictures?: boolean;
  /** Which agent calls wait for the person (setting studyBridge.approveAgentChanges). */
  approvals?: 'destructive' | 'all-writes' | 'never';
}

/** The optional UiHost methods the main thread implements (the proxy offers only these). */
/** The UiHost methods a window may lack; the worker's stand-in has those the window has. */
export const OPTIONAL_UI_METHODS = [
  'judgeUiKey',
  'applyUiState',
  'liveUiState',
  'askAnkiConnectPermission',
  'ankiGui',
] as const;
export type OptionalUiMethod = (typeof OPTIONAL_UI_METHODS)[number];
export type UiMethod = 'context' | 'open' | OptionalUiMethod;

export interface BridgeWorkerData {
  kind: 'study-bridge-worker';
  options: WorkerBridgeOptions;
  uiMethods: OptionalUiMethod[];
  /** Started by dist/bridgeBoot.js, which keeps V8's code cache of the server bundle here. */
  codeCacheDir?: string;
}

/** An error as it crosses: code (e.g. DATA_DIR_LOCKED) and status survive. */
export interface WireError {
  name: string;
  message: string;
  code?: string;
  status?: number;
  stack?: string;
}

export interface ReadyInfo {
  baseUrl: string;
  port: number;
  token: string;
  instanceNonce: string;
  /** threadId of the worker, as it sees itself (never 0, which is the main thread). */
  threadId: number;
  /** How the thread loaded the server bundle: through the code cache (threads/codeCache.ts), or not (undefined). */
  codeCache?: CodeCacheState;
}

export interface CheckpointResult {
  ms: number;
  threadId: number;
}

export type ToWorker =
  | { type: 'start'; options: WorkerBridgeOptions; uiMethods: OptionalUiMethod[] }
  | { type: 'close'; keepLock?: boolean }
  | { type: 'checkpoint'; id: number }
  | { type: 'ui-result'; id: number; ok: true; value: unknown }
  | { type: 'ui-result'; id: number; ok: false; error: WireError };

export type FromWorker =
  | ({ type: 'ready' } & ReadyInfo)
  | { type: 'start-error'; error: WireError }
  | { type: 'request'; entry: RequestLogEntry }
  | { type: 'internal-error'; error: WireError }
  | { type: 'ui'; id: number; method: UiMethod; args: unknown[] }
  | { type: 'checkpoint-result'; id: number; ok: true; result: CheckpointResult }
  | { type: 'checkpoint-result'; id: number; ok: false; error: WireError }
  | { type: 'closed' }
  | { type: 'close-error'; error: WireError };

export function toWire(err: unknown): WireError {
  if (err instanceof Error) {
    const { code, status } = err as { code?: unknown; status?: unknown };
    return {
      name: err.name,
      message: err.message,
      ...(typeof code === 'string' ? { code } : {}),
      ...(typeof status === 'number' ? { status } : {}),
      ...(err.stack ? { stack: err.stack } : {}),
    };
  }
  return { name: 'Error', message: String(err) };
}

/** An Error again, keeping `code` (BridgeHost tells DATA_DIR_LOCKED by it) and the original stack. */
export function fromWire(w: WireError): Error & { code?: string; status?: number } {
  const err = new Error(w.message) as Error & { code?: string; status?: number };
  err.name = w.name;
  if (w.code !== undefined) err.code = w.code;
  if (w.status !== undefined) err.status = w.status;
  if (w.stack) err.stack = w.stack;
  return err;
}
