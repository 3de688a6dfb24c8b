import * as vscode from 'vscode';
import type { BridgeState } from './bridgeState';

/** One status bar item that mirrors the bridge state; a click opens the actions. */
export class BridgeStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('studyBridge.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Study Bridge';
    this.item.command = 'studyBridge.showActions';
    this.update({ mode: 'stopped', dataDir: '' });
    this.item.show();
  }

  /** The text shown, for tests. */
  get text(): string {
    return this.item.text;
  }

  update(state: BridgeState): void {
    const tooltip = new vscode.MarkdownString(undefined, true);
    this.item.backgroundColor = undefined;
    switch (state.mode) {
      case 'starting':
        this.item.text = '$(sync~spin) Study Bridge';
        tooltip.appendMarkdown('Study Bridge is starting…');
        break;
      case 'hosting':
        this.item.text = `$(broadcast) Study Bridge :${state.port}`;
        tooltip.appendMarkdown(`**Study Bridge** listening on \`${state.baseUrl}\`\n\nHosted by this window.`);
        break;
      case 'attached':
        this.item.text = `$(plug) Study Bridge :${state.port} (attached)`;
        tooltip.appendMarkdown(
          `**Study Bridge** at \`${state.baseUrl}\`\n\nAttached to the bridge hosted by another window (process ${state.hostPid}); this window takes over when that one closes.`,
        );
        break;
      case 'stopped':
        this.item.text = '$(circle-slash) Study Bridge stopped';
        tooltip.appendMarkdown('Study Bridge is stopped.');
        break;
      case 'error':
        this.item.text = '$(error) Study Bridge';
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        tooltip.appendText(`Study Bridge could not start: ${state.error ?? 'unknown error'}`);
        break;
    }
    if (state.dataDir) tooltip.appendMarkdown(`\n\nData: \`${state.dataDir}\``);
    tooltip.appendMarkdown('\n\nClick for actions.');
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
