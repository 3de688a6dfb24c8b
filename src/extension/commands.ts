import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { BridgeClient } from '../client/bridgeClient';
import { errorText, type BridgeHost } from './bridgeHost';

/** How long Add PDF follows the background reading (OCR of a long scan can take minutes). */
const READ_WAIT_MS = 10 * 60_000;

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

/** Wraps a command: a failure is logged and shown, and the command answers undefined. */
export function commandGuard(log: vscode.LogOutputChannel) {
  return <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | undefined> => {
      try {
        return await fn(...args);
      } catch (err) {
        const message = errorText(err);
        log.error(`${name}: ${message}`);
        void vscode.window.showErrorMessage(`Study Bridge: ${message}`);
        return undefined;
      }
    };
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

  /**
   * Palette / view title: file picker → upload. From a study set's context menu
   * (`target` is its tree node) the book also joins that set. `file` (or a Uri
   * as `target`, e.g. from the explorer) skips the picker.
   */
  const addPdf = guarded(
    'add PDF',
    async (target?: vscode.Uri | { studySet?: { topicid: string } }, file?: vscode.Uri) => {
      const client = requireClient();
      const topicid = target && !(target instanceof vscode.Uri) ? target.studySet?.topicid : undefined;
      const picked =
        file ??
        (target instanceof vscode.Uri ? target : undefined) ??
        (
          await vscode.window.showOpenDialog({
            canSelectMany: false,
            filters: { 'PDF documents': ['pdf'] },
            openLabel: 'Add to library',
          })
        )?.[0];
      if (!picked) return undefined;
      const filename = basename(picked.fsPath);
      // The upload answers at once; the book is read in the background: follow it until every page is in.
      const { result, extraction } = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Study Bridge: ${filename}`, cancellable: false },
        async (progress) => {
          progress.report({ message: 'uploading…' });
          const bytes =
            picked.scheme === 'file' ? readFileSync(picked.fsPath) : await vscode.workspace.fs.readFile(picked);
          const uploaded = await client.uploadDocument(bytes, { filename, topicid });
          deps.refreshViews();
          let shown = 0;
          const deadline = Date.now() + READ_WAIT_MS;
          for (;;) {
            const { extraction: ex } = await client.outline(uploaded.bookmd5);
            if (ex.state === 'ready' || ex.state === 'failed' || Date.now() > deadline)
              return { result: uploaded, extraction: ex };
            const pct = ex.pageCount ? Math.floor((100 * ex.extractedPages) / ex.pageCount) : 0;
            progress.report({
              message: `reading page ${ex.extractedPages} of ${ex.pageCount}`,
              increment: pct - shown,
            });
            shown = pct;
            await new Promise((r) => setTimeout(r, 300));
          }
        },
      );
      deps.refreshViews();
      const notes = [
        extraction.state === 'failed' ? `reading failed: ${extraction.error ?? 'unknown error'}` : '',
        extraction.state !== 'ready' && extraction.state !== 'failed'
          ? `still reading (${extraction.extractedPages}/${extraction.pageCount} pages)`
          : '',
        ...result.warnings,
      ].filter(Boolean);
      const message = `Added ${result.filename} (${result.pageCount} pages) to the library${topicid && result.addedToStudySet ? ' and the study set' : ''}.`;
      if (notes.length) void vscode.window.showWarningMessage(`${message} ${notes.join(' ')}`);
      else void vscode.window.showInformationMessage(message);
      return { ...result, extraction };
    },
  );

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

  const showActions = guarded('actions', async () => {
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
  });

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

export class UserFacingError extends Error {}
