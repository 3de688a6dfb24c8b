import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '../server/ground/store/lock';
import { writeSecretFile } from '../server/domain/security/tokens';

/**
 * `<dataDir>/bridge.restarting`: the hosting window restarts its bridge (a
 * setting changed) and will host again. Between its close and its start the
 * data dir is free; a window attached to it must not take over then, with
 * settings that may not yet have caught up with the change (docs/DURABILITY.md,
 * "One bridge per data dir").
 */
const markerPath = (dataDir: string) => join(dataDir, 'bridge.restarting');

/** How long a marker is honoured: a restart takes about a second; a host that died mid-restart must not block others. */
const MARKER_TTL_MS = 30_000;

export function markRestarting(dataDir: string, pid = process.pid): void {
  writeSecretFile(markerPath(dataDir), JSON.stringify({ pid, at: Date.now() }) + '\n');
}

export function clearRestarting(dataDir: string, pid = process.pid): void {
  if (restartingHost(dataDir) === pid) rmSync(markerPath(dataDir), { force: true });
}

/** The pid of a live process that is restarting the bridge of `dataDir`, if one is. */
export function restartingHost(dataDir: string): number | undefined {
  try {
    const m = JSON.parse(readFileSync(markerPath(dataDir), 'utf8')) as { pid?: unknown; at?: unknown };
    if (typeof m.pid !== 'number' || typeof m.at !== 'number') return undefined;
    return Date.now() - m.at < MARKER_TTL_MS && isProcessAlive(m.pid) ? m.pid : undefined;
  } catch {
    return undefined; // none, or being written
  }
}
