// How a window that does not host finds and watches the bridge that another
// process hosts on the same data dir (BridgeHost attaches to it and takes
// over when it goes away).
import type * as vscode from 'vscode';
import { BridgeClient } from '../client/bridgeClient';
import { readDiscovery, type DiscoveryFile } from '../server/discovery';
import { isProcessAlive } from '../server/ground/store/lock';

/** The bridge bridge.json names, when its process lives and it answers with the same instance nonce. */
export async function probeHost(
  dataDir: string,
  log: vscode.LogOutputChannel,
): Promise<{ discovery: DiscoveryFile; client: BridgeClient } | undefined> {
  const discovery = readDiscovery(dataDir);
  if (!discovery || !isProcessAlive(discovery.pid)) return undefined;
  try {
    const client = BridgeClient.fromDataDir(dataDir);
    const status = (await client.status()) as { instanceNonce?: string };
    if (status.instanceNonce && status.instanceNonce !== discovery.instanceNonce) return undefined;
    return { discovery, client };
  } catch (err) {
    log.debug(
      `attach: bridge at ${discovery.baseUrl} does not answer yet: ${err instanceof Error ? err.message : String(err)}`,
    );
    return undefined;
  }
}

/** Whether the host an attached window watches went away: its process ended, or bridge.json is gone or names another bridge. */
export function hostGone(dataDir: string, watched: DiscoveryFile): boolean {
  const now = readDiscovery(dataDir);
  return !isProcessAlive(watched.pid) || !now || now.instanceNonce !== watched.instanceNonce;
}
