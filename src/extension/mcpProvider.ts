import * as vscode from 'vscode';
import { BridgeClient } from '../client/bridgeClient';
import type { BridgeHost } from './bridgeHost';
import type { BridgeState } from './bridgeState';

/**
 * Registers the bridge's MCP endpoint with VS Code (Copilot agent mode and
 * other MCP clients) through `vscode.lm.registerMcpServerDefinitionProvider`.
 * That API exists from VS Code 1.101; on older versions this does nothing,
 * so 1.100 activates cleanly. Typed locally because @types/vscode is 1.100.
 */
export const MCP_PROVIDER_ID = 'studyBridge.mcp';

interface McpHttpServerDefinitionCtor {
  new (label: string, uri: vscode.Uri, headers?: Record<string, string>, version?: string): unknown;
}

interface McpProviderLike {
  onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[] | Thenable<unknown[]>;
  resolveMcpServerDefinition?(server: unknown, token: vscode.CancellationToken): unknown;
}

interface LmWithMcp {
  registerMcpServerDefinitionProvider?(id: string, provider: McpProviderLike): vscode.Disposable;
}

/**
 * Returns true when the provider was registered (1.101+). On 1.100 the function
 * may exist as a proposal with another contribution point and throws: that is
 * caught here, so activation goes on.
 */
export function registerMcpProvider(
  host: BridgeHost,
  subscriptions: vscode.Disposable[],
  version: string,
  log: vscode.LogOutputChannel,
  secrets: vscode.SecretStorage,
): boolean {
  try {
    return tryRegister(host, subscriptions, version, (h) => mcpAgentToken(h, secrets, log));
  } catch (err) {
    log.info(
      `MCP server definition provider not registered (VS Code ${vscode.version}): ${err instanceof Error ? err.message : String(err)}`,
    );
    return false;
  }
}

export const MCP_AGENT_NAME = 'VS Code MCP (Copilot)';

/**
 * The MCP clients VS Code runs (Copilot agent mode) are agents, not the
 * person: they get their own write token, made once with the owner token and
 * kept in VS Code's secret storage (per data dir). Once the person revokes it
 * in Connected Agents, no server is offered any more: revoked stays revoked.
 */
async function mcpAgentToken(
  host: BridgeHost,
  secrets: vscode.SecretStorage,
  log: vscode.LogOutputChannel,
): Promise<string | undefined> {
  const owner = host.client;
  if (!owner) return undefined;
  const key = `studyBridge.mcpAgentToken:${host.state.dataDir}`;
  const stored = await secrets.get(key);
  if (stored) {
    if ((await new BridgeClient({ baseUrl: owner.baseUrl, token: stored }).status()).authorized) return stored;
    log.info(`The ${MCP_AGENT_NAME} token was revoked: the MCP server is not offered to VS Code.`);
    return undefined;
  }
  const made = await owner.tokens.create(MCP_AGENT_NAME, 'write');
  await secrets.store(key, made.token);
  return made.token;
}

function tryRegister(
  host: BridgeHost,
  subscriptions: vscode.Disposable[],
  version: string,
  agentToken: (host: BridgeHost) => Promise<string | undefined>,
): boolean {
  const lm = (vscode as unknown as { lm?: LmWithMcp }).lm;
  const Definition = (vscode as unknown as { McpHttpServerDefinition?: McpHttpServerDefinitionCtor })
    .McpHttpServerDefinition;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') return false;

  const registered: vscode.Disposable[] = [];
  const changed = new vscode.EventEmitter<void>();
  registered.push(changed);
  let lastUrl: string | undefined;
  registered.push(
    host.onDidChange((state: BridgeState) => {
      const url = state.baseUrl;
      if (url !== lastUrl) {
        lastUrl = url;
        changed.fire();
      }
    }),
  );

  const provider: McpProviderLike = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: async () => {
      const { baseUrl } = host.state;
      const token = baseUrl ? await agentToken(host).catch(() => undefined) : undefined;
      if (!baseUrl || !token) return [];
      return [
        new Definition(
          'Study Bridge',
          vscode.Uri.parse(`${baseUrl}/mcp`),
          { Authorization: `Bearer ${token}` },
          version,
        ),
      ];
    },
    resolveMcpServerDefinition: (server) => server,
  };
  try {
    registered.push(lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider));
  } catch (err) {
    for (const d of registered) d.dispose();
    throw err;
  }
  subscriptions.push(...registered);
  return true;
}
