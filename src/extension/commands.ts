import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { BridgeHost } from './bridgeHost';
import { addPdfCommand } from './addPdfCommand';
import { commandGuard, UserFacingError } from './commandGuard';

export { commandGuard, UserFacingError, type CommandGuard } from './commandGuard';

export interface CommandDeps {
  host: BridgeHost;
  log: vscode.LogOutputChannel;
  /** Reloads every view (or the ones that changed). */
  refreshViews(): void;
  /** Restarts the bridge with the current settings. */
  restartBridge(): Promise<void>;
  /** Reveals the Study Sets view. */
  revealStudySets(): Promise<void>;
}

/** Registers the palette / view-title commands; returns their disposables. */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { host, log } = deps;

  const requireClient = (): BridgeClient => {
    const client = host.client;
    if (!client) throw new UserFacingError(`The bridge is ${host.state.mode}. Restart it from the status bar.`);
    return client;
  };

  const guarded = commandGuard(log);

  const copyUrl = guarded('copy URL', async () => {
    const url = host.state.baseUrl;
    if (!url) throw new UserFacingError('The bridge is not running.');
    await vscode.env.clipboard.writeText(url);
    void vscode.window.showInformationMessage(`Copied ${url}`);
    return url;
  });

  const restart = guarded('restart', async () => {
    await deps.restartBridge();
    return host.state;
  });

  const openDataFolder = guarded('open data folder', async () => {
    const uri = vscode.Uri.file(host.state.dataDir);
    try {
      await vscode.commands.executeCommand('revealFileInOS', uri);
    } catch {
      // Remote/web hosts have no OS file manager: open the folder in a new window instead.
      await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
    }
    return uri.fsPath;
  });

  const addPdf = addPdfCommand(() => deps.refreshViews(), requireClient, guarded);

  /** `title` is for tests and scripted use; without it an input box asks. */
  const newStudySet = guarded('new study set', async (title?: string) => {
    const client = requireClient();
    const name =
      typeof title === 'string'
        ? title
        : await vscode.window.showInputBox({
            title: 'New study set',
            prompt: 'Title of the new study set',
            validateInput: (v) => (v.trim() ? undefined : 'Enter a title'),
          });
    if (!name?.trim()) return undefined;
    const created = await client.createStudySet(name.trim());
    deps.refreshViews();
    await deps.revealStudySets();
    return created;
  });

  const refresh = async () => deps.refreshViews();

  const showActions = guarded('actions', () => showBridgeActions(host));

  const showLog = async () => log.show(true);

  return [
    vscode.commands.registerCommand('studyBridge.copyUrl', copyUrl),
    vscode.commands.registerCommand('studyBridge.restart', restart),
    vscode.commands.registerCommand('studyBridge.openDataFolder', openDataFolder),
    vscode.commands.registerCommand('studyBridge.addPdf', addPdf),
    vscode.commands.registerCommand('studyBridge.newStudySet', newStudySet),
    vscode.commands.registerCommand('studyBridge.refresh', refresh),
    vscode.commands.registerCommand('studyBridge.showActions', showActions),
    vscode.commands.registerCommand('studyBridge.showLog', showLog),
  ];
}

/** The status bar's menu: what can be done with the bridge in its current mode. */
async function showBridgeActions(host: BridgeHost): Promise<void> {
  const running = host.state.mode === 'hosting' || host.state.mode === 'attached';
  const items: (vscode.QuickPickItem & { command: string })[] = [
    ...(running
      ? [
          { label: '$(plug) Connect an agent…', command: 'studyBridge.connectAgent' },
          { label: '$(copy) Copy bridge URL', description: host.state.baseUrl, command: 'studyBridge.copyUrl' },
        ]
      : []),
    { label: '$(debug-restart) Restart bridge', command: 'studyBridge.restart' },
    {
      label: '$(folder-opened) Open data folder',
      description: host.state.dataDir,
      command: 'studyBridge.openDataFolder',
    },
    { label: '$(output) Show log', command: 'studyBridge.showLog' },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: `Study Bridge (${host.state.mode})` });
  if (pick) await vscode.commands.executeCommand(pick.command);
}
