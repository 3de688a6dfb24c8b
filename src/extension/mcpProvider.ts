import * as vscode from 'vscode';
import type { BridgeHost, BridgeState } from './bridgeHost';

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
  provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
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
): boolean {
  try {
    return tryRegister(host, subscriptions, version);
  } catch (err) {
    log.info(`MCP server definition provider not registered (VS Code ${vscode.version}): ${err instanceof Error ? err.message : err}`);
    return false;
  }
}

function tryRegister(host: BridgeHost, subscriptions: vscode.Disposable[], version: string): boolean {
  const lm = (vscode as unknown as { lm?: LmWithMcp }).lm;
  const Definition = (vscode as unknown as { McpHttpServerDefinition?: McpHttpServerDefinitionCtor }).McpHttpServerDefinition;
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
    provideMcpServerDefinitions: () => {
      const { baseUrl } = host.state;
      const token = host.client?.token;
      if (!baseUrl || !token) return [];
      return [
        new Definition('Study Bridge', vscode.Uri.parse(`${baseUrl}/mcp`), { Authorization: `Bearer ${token}` }, version),
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
