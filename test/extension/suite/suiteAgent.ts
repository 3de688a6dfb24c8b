import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../../src/client/bridgeClient';

const tokens = new Map<string, Promise<string>>();

/**
 * An agent's client, as an installed agent meets the bridge: its own write
 * token ("suite agent"), made once per data dir with the owner's token file,
 * at the bridge's current address (a restart may move the port).
 */
export async function suiteAgent(dataDir: string): Promise<BridgeClient> {
  let token = tokens.get(dataDir);
  if (!token) tokens.set(dataDir, (token = BridgeClient.fromDataDir(dataDir).tokens.create('suite agent', 'write').then((t) => t.token)));
  const { baseUrl } = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')) as { baseUrl: string };
  return new BridgeClient({ baseUrl, token: await token });
}
