import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { AgentScope } from '../client/tokensApi';
import { AgentTokenNode, type AgentsProvider } from '../views/agentsView';
import type { Consent } from './cardCommands';
import { commandGuard, UserFacingError } from './commands';

const modalConsent: Consent = (message, detail, button) =>
  vscode.window.showWarningMessage(message, { modal: true, detail }, button);

export interface AgentCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient(): BridgeClient;
  agents: AgentsProvider;
}

/** What Connect an Agent… asks, or takes from its arguments when scripted. */
export interface ConnectRequest {
  name?: string;
  scope?: AgentScope;
}

const SCOPES: (vscode.QuickPickItem & { scope: AgentScope })[] = [
  { label: '$(edit) Write', description: 'reads and changes the library (default)', scope: 'write' },
  { label: '$(eye) Read only', description: 'reads, searches and dry-runs; every change is refused', scope: 'read' },
];

/**
 * The Connected Agents commands. Every agent gets its own token, named and
 * scoped here, made by the owner token this window holds; revoking one ends
 * it at once (its next request is refused).
 */
export function registerAgentCommands(deps: AgentCommandDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);

  const connectAgent = guarded('connect agent', async (request: ConnectRequest = {}) => {
    const client = deps.requireClient();
    const name =
      request.name ??
      (await vscode.window.showInputBox({
        title: 'Connect an agent (1/2)',
        prompt: 'Name of the agent: the Connected Agents view and the operation log show it',
        value: 'Claude Code',
        validateInput: (v) => (v.trim() ? undefined : 'Enter a name'),
      }));
    if (!name?.trim()) return undefined;
    const scope =
      request.scope ??
      (await vscode.window.showQuickPick(SCOPES, { title: 'Connect an agent (2/2): what may it do?' }))?.scope;
    if (!scope) return undefined;
    const install = await client.createInstallCode({ name: name.trim(), scope });
    await vscode.env.clipboard.writeText(install.command);
    const expires = install.expiresAt
      ? ` It works once, until ${new Date(install.expiresAt).toLocaleTimeString()}.`
      : '';
    const actions = install.mcpCommand
      ? ['Copy Claude Code MCP command', 'Copy install command']
      : ['Copy install command'];
    // Not awaited: the notification may stay until dismissed; the command answers the code now.
    void vscode.window
      .showInformationMessage(
        `Install command for “${install.name}” (${install.scope}) copied. Paste it into the agent's terminal to connect it.${expires}`,
        { detail: install.command },
        ...actions,
      )
      .then(async (pick) => {
        if (pick === 'Copy Claude Code MCP command' && install.mcpCommand) {
          await vscode.env.clipboard.writeText(install.mcpCommand);
          void vscode.window.showInformationMessage('MCP command copied (claude mcp add …).');
        } else if (pick === 'Copy install command') {
          await vscode.env.clipboard.writeText(install.command);
        }
      });
    return install;
  });

  const revokeAgent = guarded('revoke agent', async (target?: unknown, scripted: { consent?: Consent } = {}) => {
    if (!(target instanceof AgentTokenNode))
      throw new UserFacingError('Choose an agent in the Connected Agents view (right-click → Revoke Agent Token…).');
    const { token } = target;
    const consent = scripted.consent ?? modalConsent;
    const pick = await consent(
      `Revoke “${token.name}”?`,
      `Its token (${token.scope}) stops working at once: its next request is refused. What it wrote stays. To connect it again, use Connect an Agent….`,
      'Revoke',
    );
    if (pick !== 'Revoke') return undefined;
    const result = await deps.requireClient().tokens.revoke(token.tokenId);
    deps.agents.refresh();
    return result;
  });

  return [
    vscode.commands.registerCommand('studyBridge.connectAgent', connectAgent),
    vscode.commands.registerCommand('studyBridge.revokeAgent', revokeAgent),
    vscode.commands.registerCommand('studyBridge.refreshAgents', async () => deps.agents.refresh()),
  ];
}
