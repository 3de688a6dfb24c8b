import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BridgeClient } from '../../../src/client/bridgeClient';

const tokens = new Map<string, Promise<string>>();

/**
 * An agent's client, as an installed agent meets the bridge: its own write
 * token ("suite agent"), made once per data dir with the owner's token file,
 * at the bridge's current address (a restart may move the port). The token is
 * kept beside the data dir, as an installed agent keeps it: every suite file
 * (each bundled on its own) shares one, so the Connected Agents view lists it once.
 */
export async function suiteAgent(dataDir: string): Promise<BridgeClient> {
  const kept = join(dirname(dataDir), `.suite-agent-token-${dataDir.replace(/[^\w]/g, '_').slice(-40)}`);
  let token = tokens.get(dataDir);
  if (!token && existsSync(kept)) tokens.set(dataDir, (token = Promise.resolve(readFileSync(kept, 'utf8').trim())));
  if (!token) {
    token = BridgeClient.fromDataDir(dataDir)
      .tokens.create('suite agent', 'write')
      .then((t) => {
        writeFileSync(kept, t.token, { mode: 0o600 });
        return t.token;
      });
    tokens.set(dataDir, token);
  }
  const { baseUrl } = JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')) as { baseUrl: string };
  return new BridgeClient({ baseUrl, token: await token });
}
