import { homedir } from 'node:os';
import { join } from 'node:path';

/** Settings of one running bridge, fixed at start. */
export interface BridgeConfig {
  dataDir: string;
  /** Where bundles and exports go; defaults to the data dir. */
  exportFolder: string;
  /** Directory holding library files: <dataDir>/library. */
  libraryDir: string;
  /**
   * Folders a PDF may be imported from by path (POST /library/documents/import,
   * MCP study_upload), besides the library itself: setting studyBridge.importFolders,
   * CLI --import-folders; default ~/Documents and ~/Downloads.
   */
  importFolders: string[];
  limits: BridgeLimits;
}

export interface BridgeLimits {
  /** JSON request bodies. */
  jsonBodyBytes: number;
  /** Raw uploads (setting studyBridge.maxUploadMb, --max-upload-mb): larger ones answer 413. */
  uploadBytes: number;
  /** Pages of an uploaded PDF (setting studyBridge.maxPages, --max-pages): more answer 422 before extraction. */
  maxPages: number;
  /** Install code lifetime. */
  installCodeMs: number;
  /** Pairing code lifetime. */
  pairCodeMs: number;
  /** Wrong pairing codes before the pending code dies. */
  pairAttempts: number;
  /** GET /events: heartbeat comment interval. */
  eventHeartbeatMs: number;
  /** GET /events: recent changes kept for Last-Event-ID; an older one gets `reset`. */
  eventRingSize: number;
  /** GET /events: bytes a slow client may have waiting before it is sent `reset` instead. */
  eventBufferBytes: number;
  /** How long an agent's held call waits for the person's decision before it expires. */
  approvalTtlMs: number;
  /** How long a large outline import's parse may run (on its worker) before 422 OUTLINE_TOO_COSTLY. */
  outlineBudgetMs: number;
}

export const defaultLimits: BridgeLimits = {
  jsonBodyBytes: 1024 * 1024,
  uploadBytes: 1024 * 1024 * 1024,
  maxPages: 10_000,
  installCodeMs: 10 * 60_000,
  pairCodeMs: 5 * 60_000,
  pairAttempts: 3,
  eventHeartbeatMs: 15_000,
  eventRingSize: 10_000,
  eventBufferBytes: 1024 * 1024,
  approvalTtlMs: 10 * 60_000,
  outlineBudgetMs: 10_000,
};

/** Where the person keeps PDFs unless they configure otherwise. */
export const defaultImportFolders = (): string[] => [join(homedir(), 'Documents'), join(homedir(), 'Downloads')];
