import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { createBridge, type Bridge, type BridgeOptions } from '../../src/server/bridge';

export interface TestBridge {
  bridge: Bridge;
  /** An agent's client: its own write token (named "test agent"), as an agent would meet the bridge. */
  client: BridgeClient;
  /** The person's client: the owner token (the data dir's token file), as VS Code and the CLI use it. */
  owner: BridgeClient;
  /** Client without a token. */
  anonymous: BridgeClient;
  dataDir: string;
  /** Closes the bridge and deletes its data dir. */
  stop(): Promise<void>;
}

export const tempDir = (prefix = 'sb-test-') => mkdtempSync(join(tmpdir(), prefix));

/** The test agent's token per data dir: a restart reuses it, as a real agent keeps its token (a new one would change agent_tokens). */
const agentTokens = new Map<string, { tokenId: string; token: string }>();

/** The real bridge on port 0 with a temp data dir, as an agent would meet it. */
export async function startBridge(opts: Partial<BridgeOptions> = {}): Promise<TestBridge> {
  const dataDir = opts.dataDir ?? tempDir();
  const bridge = await createBridge({ port: 0, ...opts, dataDir });
  // find(), not identify(): looking must not count as a use of the token.
  let agent = agentTokens.get(dataDir);
  if (!agent || !bridge.services.tokens.find(agent.tokenId)) {
    agent = await bridge.services.tokens.issue('test agent', 'write');
    agentTokens.set(dataDir, { tokenId: agent.tokenId, token: agent.token });
  }
  const token = agent.token;
  return {
    bridge,
    dataDir,
    client: new BridgeClient({ baseUrl: bridge.baseUrl, token }),
    owner: new BridgeClient({ baseUrl: bridge.baseUrl, token: bridge.token }),
    anonymous: new BridgeClient({ baseUrl: bridge.baseUrl }),
    async stop() {
      await bridge.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
