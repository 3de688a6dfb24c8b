import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';

export interface DeckDue {
  deckId: string;
  title: string;
  /** Due now. */
  dueNow: number;
  /** Due before the end of today (the bridge's local day). */
  dueToday: number;
}

/**
 * The status bar item with the review cards due today across decks; a click
 * reviews the deck with the most due. Refreshed by the owner on library
 * changes, and here when the date changes (tomorrow's cards become today's).
 */
export class DueStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private midnight: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private decks: DeckDue[] = [];

  constructor(
    private readonly getClient: () => BridgeClient | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.item = vscode.window.createStatusBarItem('studyBridge.due', vscode.StatusBarAlignment.Right, 99);
    this.item.name = 'Study Bridge: Reviews Due';
    this.item.command = 'studyBridge.reviewDue';
    this.armMidnight();
  }

  /** Cards due today across decks. */
  get total(): number {
    return this.decks.reduce((n, d) => n + d.dueToday, 0);
  }

  /** The text shown, for tests. */
  get text(): string {
    return this.item.text;
  }

  /** The deck to review first: most due now, then most due today. */
  busiest(): DeckDue | undefined {
    return [...this.decks]
      .filter((d) => d.dueToday > 0)
      .sort((a, b) => b.dueNow - a.dueNow || b.dueToday - a.dueToday)[0];
  }

  /** Re-reads the counts; calls while one runs coalesce into one more run. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.read().catch((e) => this.log.debug(`due count: ${e instanceof Error ? e.message : String(e)}`));
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<void> {
    const client = this.getClient();
    if (!client) {
      this.decks = [];
      this.item.hide();
      return;
    }
    const decks = (await client.listDecks()).filter((d) => d.cardCount > 0);
    this.decks = await Promise.all(
      decks.map(async (d) => {
        const due = await client.reviews.due(d.deckId, 1);
        return { deckId: d.deckId, title: d.title, dueNow: due.dueCount, dueToday: due.dueTodayCount };
      }),
    );
    if (!decks.length) {
      this.item.hide();
      return;
    }
    const total = this.total;
    this.item.text = `$(layers) ${total} due`;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown(`**Study Bridge**: ${total} review ${total === 1 ? 'card' : 'cards'} due today\n\n`);
    for (const d of this.decks.filter((x) => x.dueToday > 0))
      tooltip.appendText(`${d.title}: ${d.dueToday} today (${d.dueNow} now)\n`);
    tooltip.appendMarkdown(total ? '\n\nClick to review the deck with the most due.' : '\n\nNothing due today.');
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: `Study Bridge: ${total} review cards due today` };
    this.item.show();
  }

  /** A refresh just after the next local midnight, then every day. */
  private armMidnight(): void {
    const now = new Date();
    const next = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, 0, 0, 5);
    this.midnight = setTimeout(() => {
      void this.refresh();
      this.armMidnight();
    }, next.getTime() - now.getTime());
  }

  dispose(): void {
    if (this.midnight) clearTimeout(this.midnight);
    this.item.dispose();
  }
}
