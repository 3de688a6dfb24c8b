import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { PendingApproval } from '../client/approvalsApi';
import { freshGroups, groupNotice } from '../client/approvalGroups';
import type { LibraryChangeFeed } from './changeFeed';

export type ApprovalChoice = 'Allow' | 'Deny' | 'Show' | undefined;
/** How the person is asked; tests pass their own (VS Code refuses modal dialogs under extension tests). */
export type ApprovalPrompt = (approval: PendingApproval, modal: boolean) => Promise<ApprovalChoice>;

/** Show opens the call as read-only JSON under this scheme: no untitled document asking to be saved when closed. */
const SHOW_SCHEME = 'study-bridge-approval';

/** Deletes of whole study sets or documents ask in a modal dialog; the rest in a notification. */
const MODAL_PATHS = new Set(['/study-sets/{id}/delete', '/library/documents/{id}/delete']);

const defaultPrompt: ApprovalPrompt = async (a, modal) =>
  vscode.window.showWarningMessage(
    `Study Bridge: ${a.summary.text}`,
    {
      modal,
      detail: `Agent "${a.agent.name}" asks for ${a.method} ${a.path}. Allow runs it once, as that agent; Deny drops it. It expires at ${new Date(a.expiresAt).toLocaleTimeString()}.`,
    },
    'Allow',
    'Deny',
    'Show',
  );

/**
 * Agents' calls held for the person (policy studyBridge.approveAgentChanges):
 * each pending one is asked once per window as it arrives (event `approval`
 * on the change feed), with the agent's name and the dry-run; an agent's
 * calls that arrive together share one notification; the status bar
 * counts those still pending, and a click asks again. Decided with the owner
 * token this window holds.
 */
export class ApprovalPrompts implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly asked = new Set<string>();
  /** Agents (token ids) with a prompt on screen. */
  private readonly asking = new Set<string>();
  private pending: PendingApproval[] = [];
  /** What Show displays, by approval id (the read-only documents' content). */
  private readonly shown = new Map<string, string>();
  private readonly provider: vscode.Disposable;

  constructor(
    private readonly getClient: () => BridgeClient | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.item = vscode.window.createStatusBarItem('studyBridge.approvals', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Study Bridge: Pending Approvals';
    this.item.command = 'studyBridge.showApprovals';
    this.provider = vscode.workspace.registerTextDocumentContentProvider(SHOW_SCHEME, {
      provideTextDocumentContent: (uri) => this.shown.get(uri.path.replace(/^\/|\.json$/g, '')) ?? '{}\n',
    });
  }

  /** Re-reads the pending approvals; asks about the new ones. */
  async refresh(): Promise<void> {
    const client = this.getClient();
    try {
      this.pending = client ? await client.approvals.pending() : [];
    } catch (e) {
      this.log.debug(`approvals: ${e instanceof Error ? e.message : String(e)}`);
      this.pending = [];
    }
    this.render();
    // One prompt per agent however many calls it sent; calls arriving while it is open come in the next one.
    for (const calls of freshGroups(this.pending, this.asked, this.asking)) {
      const tokenId = calls[0].agent.tokenId;
      for (const a of calls) this.asked.add(a.approvalId);
      this.asking.add(tokenId);
      (calls.length === 1 ? this.ask(calls[0], defaultPrompt) : this.askGroup(calls))
        .catch((e) => this.log.warn(`approval prompt: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => {
          this.asking.delete(tokenId);
          void this.refresh();
        });
    }
  }

  /** Several calls of one agent in one notification: Review asks about each in turn, Deny all drops them. */
  private async askGroup(calls: PendingApproval[]): Promise<void> {
    const notice = groupNotice(calls);
    const choice = await vscode.window.showWarningMessage(
      notice.message,
      { detail: notice.detail },
      'Review',
      'Deny all',
    );
    if (choice === 'Review') for (const a of calls) await this.ask(a, defaultPrompt);
    const client = this.getClient();
    if (choice !== 'Deny all' || !client) return;
    for (const a of calls) await client.approvals.decide(a.approvalId, 'deny').catch(() => undefined);
    this.log.info(`approvals of ${calls[0].agent.name}: ${calls.length} denied`);
  }

  private render(): void {
    const n = this.pending.length;
    if (!n) {
      this.item.hide();
      return;
    }
    this.item.text = `$(shield) ${n} ${n === 1 ? 'approval' : 'approvals'}`;
    this.item.tooltip = `Study Bridge: ${n} agent ${n === 1 ? 'change waits' : 'changes wait'} for you\n${this.pending.map((a) => a.summary.text).join('\n')}`;
    this.item.accessibilityInformation = { label: `Study Bridge: ${n} pending approvals` };
    this.item.show();
  }

  /** Asks about every pending approval again (the status bar's click; tests pass their prompt). */
  async review(prompt: ApprovalPrompt = defaultPrompt): Promise<string[]> {
    await this.refresh();
    const outcomes: string[] = [];
    for (const a of [...this.pending]) outcomes.push(await this.ask(a, prompt));
    return outcomes;
  }

  /** One approval: Show opens the dry-run and asks again; Allow or Deny decides. Answers the state after. */
  private async ask(a: PendingApproval, prompt: ApprovalPrompt): Promise<string> {
    for (;;) {
      const choice = await prompt(a, MODAL_PATHS.has(a.path));
      if (choice === 'Show') {
        this.shown.set(
          a.approvalId,
          JSON.stringify({ agent: a.agent, call: `${a.method} ${a.path}`, summary: a.summary }, null, 2) + '\n',
        );
        const doc = await vscode.workspace.openTextDocument(
          vscode.Uri.from({ scheme: SHOW_SCHEME, path: `/${a.approvalId}.json` }),
        );
        await vscode.window.showTextDocument(doc, { preview: true });
        continue;
      }
      if (choice !== 'Allow' && choice !== 'Deny') return 'pending';
      const client = this.getClient();
      if (!client) return 'pending';
      try {
        const decided = await client.approvals.decide(a.approvalId, choice === 'Allow' ? 'allow' : 'deny');
        const status = decided.result?.status;
        if (status !== undefined && status >= 400)
          void vscode.window.showWarningMessage(
            `Study Bridge: the allowed call failed (${status}): ${JSON.stringify(decided.result?.body).slice(0, 300)}`,
          );
        this.log.info(
          `approval ${a.approvalId} (${a.summary.text}): ${decided.state}${status !== undefined ? `, answered ${status}` : ''}`,
        );
        return decided.state;
      } catch (e) {
        // Decided elsewhere (another window, the MCP client) or expired while the prompt was up: VS Code cannot
        // take a shown message back, so the late click says why it did nothing.
        this.log.info(`approval ${a.approvalId}: ${e instanceof Error ? e.message : String(e)}`);
        void vscode.window.showInformationMessage(
          `Study Bridge: "${a.summary.text}" was already decided elsewhere or expired; your ${choice} did nothing.`,
        );
        return 'gone';
      } finally {
        void this.refresh();
      }
    }
  }

  dispose(): void {
    this.item.dispose();
    this.provider.dispose();
  }
}

/** Wires the prompts to the change feed and the bridge's state; `studyBridge.showApprovals` asks again. */
export function registerApprovalPrompts(deps: {
  log: vscode.LogOutputChannel;
  getClient: () => BridgeClient | undefined;
  feed: LibraryChangeFeed;
  onBridgeChange: vscode.Event<{ mode: string }>;
}): vscode.Disposable[] {
  const prompts = new ApprovalPrompts(deps.getClient, deps.log);
  return [
    prompts,
    deps.feed.onApproval(() => void prompts.refresh()),
    deps.onBridgeChange((s) => s.mode !== 'starting' && void prompts.refresh()),
    vscode.commands.registerCommand('studyBridge.showApprovals', (opts?: { prompt?: ApprovalPrompt }) =>
      prompts.review(opts?.prompt),
    ),
  ];
}
