import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { BundleEntry } from '../client/bundlesApi';
import { RESULT_EDITOR_VIEW_TYPE } from '../editors/resultMarkdownEditor';
import { bundleIdOfPath } from '../editors/resultPreviewModel';
import { BundleNode } from '../views/bundlesView';
import type { Consent } from './cardCommands';
import { commandGuard, UserFacingError } from './commands';

const modalConsent: Consent = (message, detail, button) =>
  vscode.window.showWarningMessage(message, { modal: true, detail }, button);

export interface BundleCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient(): BridgeClient;
  refreshViews(): void;
  /** Shows an imported tree's root card in the Study Sets view. */
  revealImport(topicid: string, rootNoteId: string): Promise<void>;
}

/** A bundle named by a view node, a result.md uri, or nothing (the active editor's file). */
interface Target {
  bundleId: string;
  resultUri: vscode.Uri;
  entry?: BundleEntry;
}

/**
 * Commands on bundles (the Bundles view's inline actions, and the palette for
 * the active result.md): open result.md as text + preview, open as text,
 * submit, focus, discard (with consent).
 */
export function registerBundleCommands(deps: BundleCommandDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);

  /** The text editor in the first column, the card preview beside it. */
  const openResult = guarded('open result.md', async (arg?: unknown) => {
    const t = targetOf(arg);
    await vscode.commands.executeCommand('vscode.openWith', t.resultUri, 'default', vscode.ViewColumn.One);
    await vscode.commands.executeCommand('vscode.openWith', t.resultUri, RESULT_EDITOR_VIEW_TYPE, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
    });
    return t.resultUri;
  });

  const openPreview = guarded('open preview', async (arg?: unknown) => {
    const t = targetOf(arg);
    await vscode.commands.executeCommand(
      'vscode.openWith',
      t.resultUri,
      RESULT_EDITOR_VIEW_TYPE,
      vscode.ViewColumn.Beside,
    );
    return t.resultUri;
  });

  const openAsText = guarded('open as text', async (arg?: unknown) => {
    const t = targetOf(arg);
    await vscode.commands.executeCommand('vscode.openWith', t.resultUri, 'default');
    return t.resultUri;
  });

  const submit = guarded('submit bundle', async (arg?: unknown) =>
    submitBundle(deps, targetOf(arg), (uri) => openResult(uri)),
  );

  const focus = guarded('focus bundle', async (arg?: unknown) =>
    deps.requireClient().bundles.focus(targetOf(arg).bundleId),
  );

  const discard = guarded('discard bundle', async (arg?: unknown, scripted?: { consent?: Consent }) =>
    discardBundle(deps, targetOf(arg), scripted?.consent ?? modalConsent),
  );

  return [
    vscode.commands.registerCommand('studyBridge.openResult', openResult),
    vscode.commands.registerCommand('studyBridge.openResultPreview', openPreview),
    vscode.commands.registerCommand('studyBridge.openResultAsText', openAsText),
    vscode.commands.registerCommand('studyBridge.submitBundle', submit),
    vscode.commands.registerCommand('studyBridge.focusBundle', focus),
    vscode.commands.registerCommand('studyBridge.discardBundle', discard),
  ];
}

/** The bundle an argument names: a Bundles view node, a result.md uri, or the active editor's result.md. */
function targetOf(arg: unknown): Target {
  if (arg instanceof BundleNode) return { bundleId: arg.bundleId, resultUri: arg.resultUri, entry: arg.bundle };
  const uri = arg instanceof vscode.Uri ? arg : activeResultUri();
  const bundleId = uri && uri.scheme === 'file' ? bundleIdOfPath(uri.fsPath) : undefined;
  if (!uri || !bundleId) throw new UserFacingError('Pick a bundle in the Bundles view, or open a bundle’s result.md.');
  return { bundleId, resultUri: uri };
}

/** Saves an open, edited result.md first (the bridge reads the folder's file), imports, reveals, tells. */
async function submitBundle(deps: BundleCommandDeps, t: Target, openResult: (uri: vscode.Uri) => unknown) {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === t.resultUri.toString());
  if (open?.isDirty && !(await open.save()))
    throw new UserFacingError('result.md could not be saved; nothing was imported.');
  const client = deps.requireClient();
  const receipt = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Study Bridge: importing the bundle’s cards…' },
    () => client.bundles.submit(t.bundleId),
  );
  deps.refreshViews();
  const p = receipt.parsed;
  const lost = p.headings - p.importedCards;
  const failed = p.excerptsTotal - p.excerptsAnchored;
  const text = `Imported version ${receipt.version}: ${p.importedCards} cards, ${p.excerptsAnchored}/${p.excerptsTotal} excerpts anchored${lost ? `, ${lost} lost headings` : ''}.`;
  const topicid =
    t.entry?.topicid ?? (await client.bundles.list()).bundles.find((b) => b.bundleId === t.bundleId)?.topicid;
  if (topicid) void deps.revealImport(topicid, receipt.rootNoteId).catch(() => undefined);
  const show = lost || failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(`Study Bridge: ${text}`, 'Open result.md').then((pick) => pick && openResult(t.resultUri));
  return receipt;
}

/** Asks first; closes the tabs of its result.md, then discards the bundle (its folder). */
async function discardBundle(deps: BundleCommandDeps, t: Target, consent: Consent) {
  const state = t.entry?.state;
  const detail = [
    state === 'preparing' ? 'Its preparation is cancelled.' : '',
    `The bundle folder (TASK.md, source.json, result.md…) is deleted: ${vscode.Uri.joinPath(t.resultUri, '..').fsPath}`,
    state === 'imported' ? 'The cards it imported stay in the study set.' : '',
  ]
    .filter(Boolean)
    .join('\n');
  if ((await consent('Discard this bundle?', detail, 'Discard')) !== 'Discard') return undefined;
  // An open preview or text editor of its result.md would show a deleted file.
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((tab) => (tab.input as { uri?: vscode.Uri } | undefined)?.uri?.toString() === t.resultUri.toString());
  // All at once: closing one tab can invalidate the others' handles. Best effort; the discard matters.
  if (tabs.length)
    await Promise.resolve(vscode.window.tabGroups.close(tabs, true)).catch((e) =>
      deps.log.debug(`discard: closing tabs: ${String(e)}`),
    );
  const result = await deps.requireClient().bundles.discard(t.bundleId);
  deps.refreshViews();
  return result;
}

/** The result.md of the active editor: a text editor or our preview tab. */
function activeResultUri(): vscode.Uri | undefined {
  const text = vscode.window.activeTextEditor?.document.uri;
  if (text) return text;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: vscode.Uri } | undefined;
  return input?.uri;
}
