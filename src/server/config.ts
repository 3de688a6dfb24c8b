/** Settings of one running bridge, fixed at start. */
export interface BridgeConfig {
  dataDir: string;
  /** Where bundles and exports go; defaults to the data dir. */
  exportFolder: string;
  /** Directory holding library files: <dataDir>/library. */
  libraryDir: string;
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
}

export const defaultLimits: BridgeLimits = {
  jsonBodyBytes: 1024 * 1024,
  uploadBytes: 1024 * 1024 * 1024,
  maxPages: 10_000,
  installCodeMs: 10 * 60_000,
  pairCodeMs: 5 * 60_000,
  pairAttempts: 3,
};
