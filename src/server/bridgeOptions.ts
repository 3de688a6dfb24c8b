// What createBridge takes and gives back (bridge.ts): the cli, the worker and the tests build a bridge from these.
import type { BridgeLimits } from './config';
import type { Entitlements } from './entitlements';
import type { RequestLogEntry } from './api/http/app';
import type { RouteServices } from './api/http/routeTable';
import type { StoreOptions } from './ground/store/store';
import type { UiHost } from './domain/ui/uiHost';
import type { ApprovalPolicy } from './domain/approvals/approvalService';

export interface BridgeOptions {
  dataDir: string;
  /** undefined: 42380, else the next free one up to 42399. 0: any free port. */
  port?: number;
  /** Premium entitlement; default on (local edition). Ignored when `entitlements` is given. */
  premium?: boolean;
  entitlements?: Entitlements;
  exportFolder?: string;
  /** Folders PDFs may be imported from by path; default ~/Documents and ~/Downloads. */
  importFolders?: string[];
  ui?: UiHost;
  limits?: Partial<BridgeLimits>;
  store?: StoreOptions;
  /** Which agent calls wait for the person's approval; default 'never' (headless: CI and scripts keep working). */
  approvals?: ApprovalPolicy;
  /** Request log: method, path (no query), status, ms. Never tokens. */
  onRequest?: (e: RequestLogEntry) => void;
  /** Unexpected errors (the 500s), with their stacks, for the log. */
  onError?: (e: unknown) => void;
  /** Render each new book's first page as the reader's opening picture (library/openingPictures.ts); the extension's bridge does. */
  openingPictures?: boolean;
  /** Serve AnkiConnect's protocol on this loopback port too (0: any free port); off when undefined. */
  ankiConnect?: { port: number; allowedOrigins?: string[] };
}

export interface Bridge {
  baseUrl: string;
  port: number;
  token: string;
  instanceNonce: string;
  dataDir: string;
  services: RouteServices;
  /** The AnkiConnect port, when served. */
  ankiConnectPort?: number;
  /**
   * Finishes in-flight requests, checkpoints, removes bridge.json, releases the lock.
   * `keepLock`: this process starts the bridge again at once; no other process may take the data dir meanwhile.
   */
  close(opts?: { keepLock?: boolean }): Promise<void>;
}
