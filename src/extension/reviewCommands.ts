import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { DeckNode } from '../views/decksView';
import { ReviewPanels } from '../views/reviewPanel';
import type { ReviewSession } from '../views/reviewSession';
import { commandGuard, UserFacingError } from './commands';
import { DueStatusBar } from './dueStatusBar';

export interface ReviewDeps {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  getClient: () => BridgeClient | undefined;
  /** Opens a card's source page in the reader beside the review panel, flashing its rectangle. */
  openSource: (source: { bookmd5: string; page: number; noteid: string; topicid: string }) => Promise<unknown>;
}

export interface Review {
  panels: ReviewPanels;
  dueStatus: DueStatusBar;
  disposables: vscode.Disposable[];
}

/**
 * Reviewing decks: "Review Now" on a deck (its review panel), the status bar
 * count of cards due today (a click reviews the deck with the most due).
 * Grades go through the typed client with the owner token: the person's.
 */
export function registerReview(deps: ReviewDeps): Review {
  const guarded = commandGuard(deps.log);
  const panels = new ReviewPanels(deps.extensionUri, deps.getClient, deps.log, deps.openSource);
  const dueStatus = new DueStatusBar(deps.getClient, deps.log);

  /** Target: a Review Decks node, `{deckId, title}`, or nothing (pick one). */
  const reviewDeck = guarded(
    'review deck',
    async (target?: DeckNode | { deckId: string; title?: string }): Promise<ReviewSession | undefined> => {
      const client = deps.getClient();
      if (!client) throw new UserFacingError('The bridge is not running. Restart it from the status bar.');
      let deck = target instanceof DeckNode ? target.deck : target;
      if (!deck) {
        const decks = await client.listDecks();
        if (!decks.length) throw new UserFacingError('No review decks yet.');
        const picked = await vscode.window.showQuickPick(
          decks.map((d) => ({ label: d.title, description: `${d.dueCount ?? 0} due · ${d.cardCount} cards`, deck: d })),
          { title: 'Review which deck?' },
        );
        deck = picked?.deck;
      }
      if (!deck) return undefined;
      const title = deck.title ?? (await client.listDecks()).find((d) => d.deckId === deck.deckId)?.title ?? 'Deck';
      return panels.open({ deckId: deck.deckId, title });
    },
  );

  const reviewDue = guarded('review due', async () => {
    await dueStatus.refresh();
    const deck = dueStatus.busiest();
    if (!deck) {
      void vscode.window.showInformationMessage('Study Bridge: no review cards are due today.');
      return undefined;
    }
    return panels.open({ deckId: deck.deckId, title: deck.title });
  });

  return {
    panels,
    dueStatus,
    disposables: [
      panels,
      dueStatus,
      vscode.commands.registerCommand('studyBridge.reviewDeck', reviewDeck),
      vscode.commands.registerCommand('studyBridge.reviewDue', reviewDue),
      // The count follows this window's grades at once, without waiting for the change feed.
      panels.onDidGrade(() => void dueStatus.refresh()),
    ],
  };
}
