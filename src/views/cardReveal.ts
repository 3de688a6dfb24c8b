import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { BridgeNode } from './bridgeTreeProvider';
import type { StudySetsProvider } from './studySetsView';
import { revealSettled } from './treeReveal';

/** How long a reveal keeps being re-applied after refreshes (an import's refreshes land within it, also on a busy machine). */
const HOLD_MS = 15_000;
/** After a reveal, when the selection is checked: a refresh in flight can drop it just after. */
const CHECK_AFTER_MS = 400;

/**
 * Selects a card in the Study Sets view, and keeps it selected through the
 * refreshes that follow the write that made it (the submit's own refresh, then
 * the change feed's): a reveal that lands while a refresh is in flight is lost
 * when VS Code re-renders from the refresh's start. So each refresh within
 * HOLD_MS re-applies the reveal, until the person selects something else. A reveal that ended without the
 * card selected (dropped by a refresh, or given up: views/treeReveal.ts) is applied again, within HOLD_MS.
 */
export class CardRevealer implements vscode.Disposable {
  private pending?: { topicid: string; noteid: string; nodeId: string; until: number };
  /** A reveal is running: the refreshes it makes itself (treeReveal.ts reloads a view behind the library) start no other. */
  private applying = false;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly tree: vscode.TreeView<BridgeNode>,
    private readonly provider: StudySetsProvider,
    private readonly getClient: () => BridgeClient | undefined,
    private readonly log: (message: string) => void = () => undefined,
  ) {
    this.subscriptions = [
      provider.onDidChangeTreeData(() => {
        if (this.pending && !this.applying && Date.now() < this.pending.until)
          setTimeout(() => void this.apply().catch((err: unknown) => this.failed(err)), 100);
      }),
      tree.onDidChangeSelection((e) => {
        // The person chose something else: stop holding.
        if (this.pending && e.selection.length && e.selection[0].id !== this.pending.nodeId) {
          this.log(`reveal of ${this.pending.nodeId} ended: ${e.selection[0].id} was selected`);
          this.pending = undefined;
        }
      }),
    ];
  }

  /** Selects `noteid` of the set (its tree is read if needed); resolves once selected, or false if not found. */
  async reveal(studySet: { topicid: string }, noteid: string): Promise<boolean> {
    this.pending = {
      topicid: studySet.topicid,
      noteid,
      nodeId: `card/${studySet.topicid}/${noteid}`,
      until: Date.now() + HOLD_MS,
    };
    return this.apply().catch((err: unknown) => {
      this.failed(err);
      throw err;
    });
  }

  private failed(err: unknown): void {
    this.log(
      `reveal of ${this.pending?.nodeId ?? 'a card'} failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }

  private async apply(): Promise<boolean> {
    const p = this.pending;
    const client = this.getClient();
    if (!p || !client) return false;
    const set = (await client.listStudySets()).find((s) => s.topicid === p.topicid);
    const node = () => (set ? this.provider.cardNode(client, set, p.noteid) : Promise.resolve(undefined));
    if (!(await node()) || this.pending !== p) return false;
    this.applying = true;
    try {
      await revealSettled(this.tree, this.provider, node, { select: true, focus: false, expand: false });
    } finally {
      this.applying = false;
    }
    setTimeout(() => this.check(p), CHECK_AFTER_MS);
    return true;
  }

  /** Applies `p` again if it is still held and its card is not the selection. */
  private check(p: NonNullable<CardRevealer['pending']>): void {
    if (this.pending !== p || this.applying || Date.now() >= p.until) return;
    if (this.tree.selection[0]?.id === p.nodeId) return;
    this.log(`reveal of ${p.nodeId}: not selected after the reveal; applying it again`);
    void this.apply().catch((err: unknown) => this.failed(err));
  }

  dispose(): void {
    this.pending = undefined;
    for (const s of this.subscriptions) s.dispose();
  }
}
