import { existsSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecretFile } from './domain/security/tokens';

/** `<dataDir>/bridge.json`: how local clients find a running bridge (docs/CONTRACT-CHOICES.md, "Discovery"). */
export interface DiscoveryFile {
  baseUrl: string;
  port: number;
  pid: number;
  instanceNonce: string;
  version: string;
  /** The AnkiConnect port, when it is served (--ankiconnect-port, setting studyBridge.ankiConnect.port). */
  ankiConnectPort?: number;
}

export const discoveryPath = (dataDir: string) => join(dataDir, 'bridge.json');

/**
 * Writes bridge.json (the caller holds the data dir's lock). When that fails,
 * no half-written temp is left, nor an older bridge.json naming a dead bridge.
 */
export function writeDiscovery(dataDir: string, info: DiscoveryFile): void {
  const path = discoveryPath(dataDir);
  try {
    // Atomic (temp name + rename, the temp removed on failure): a reader never sees half a file.
    writeSecretFile(path, JSON.stringify(info, null, 2) + '\n');
  } catch (e) {
    rmSync(path, { force: true }); // no older bridge.json naming a dead bridge
    throw e;
  }
}

export function readDiscovery(dataDir: string): DiscoveryFile | undefined {
  const path = discoveryPath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as DiscoveryFile;
    return typeof parsed.baseUrl === 'string' && typeof parsed.pid === 'number' ? parsed : undefined;
  } catch {
    return undefined; // being written, or not ours
  }
}

/** Removes the file only if it still describes this instance. */
export function removeDiscovery(dataDir: string, instanceNonce: string): void {
  if (readDiscovery(dataDir)?.instanceNonce !== instanceNonce) return;
  try {
    unlinkSync(discoveryPath(dataDir));
  } catch {
    /* already gone */
  }
}
