import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { DeckNode } from '../views/decksView';
import { DeckStatsPanels } from '../views/deckStatsPanel';
import { commandGuard, UserFacingError } from './commands';
import { optimizeDeckCommand } from './optimizeCommand';

export interface DeckStatsDeps {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  getClient: () => BridgeClient | undefined;
  requireClient: () => BridgeClient;
  /** Anyone's write to the library: open Statistics panels follow it. */
  onLibraryChange: vscode.Event<unknown>;
  /** The bridge came up, went or moved: open Statistics panels fetch again. */
  onBridgeChange: vscode.Event<{ mode: string }>;
}

type DeckTarget = DeckNode | { deckId: string; title?: string } | undefined;

/** A deck from a Review Decks node, `{deckId, title?}`, or the person's pick (`all`: "All decks" offered first). */
async function resolveDeck(
  client: BridgeClient,
  target: DeckTarget,
  pickTitle: string,
  all = false,
): Promise<{ deckId?: string; title: string } | undefined> {
  const deck = target instanceof DeckNode ? target.deck : target;
  if (deck?.deckId) {
    const title = deck.title ?? (await client.listDecks()).find((d) => d.deckId === deck.deckId)?.title ?? 'Deck';
    return { deckId: deck.deckId, title };
  }
  const decks = await client.listDecks();
  if (!decks.length && !all) throw new UserFacingError('No review decks yet.');
  const items = [
    ...(all ? [{ label: 'All decks', description: `${decks.length} decks`, deck: undefined }] : []),
    ...decks.map((d) => ({ label: d.title, description: `${d.cardCount} cards`, deck: d })),
  ];
  const picked = await vscode.window.showQuickPick(items, { title: pickTitle });
  if (!picked) return undefined;
  return picked.deck ? { deckId: picked.deck.deckId, title: picked.deck.title } : { title: 'All decks' };
}

/**
 * Deck Statistics (a deck's, or all decks' from the view's title bar) in the
 * Statistics panel, and Optimize FSRS Parameters on a deck. Each command
 * answers what it showed (the panel's state, the optimizer's outcome).
 */
export function registerDeckStats(deps: DeckStatsDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);
  const panels = new DeckStatsPanels(deps);

  const deckStatistics = guarded('deck statistics', async (target?: DeckTarget) => {
    const picked = await resolveDeck(deps.requireClient(), target, 'Statistics of which deck?', true);
    return picked ? panels.open(picked) : undefined;
  });
  const allStatistics = guarded('all decks statistics', async () => panels.open({ title: 'All decks' }));
  const optimize = guarded('optimize FSRS', async (target?: DeckTarget) => {
    const client = deps.requireClient();
    const picked = await resolveDeck(client, target, 'Optimize FSRS for which deck?');
    return picked?.deckId ? optimizeDeckCommand(client, { deckId: picked.deckId, title: picked.title }) : undefined;
  });

  return [
    panels,
    vscode.commands.registerCommand('studyBridge.deckStatistics', deckStatistics),
    vscode.commands.registerCommand('studyBridge.allDeckStatistics', allStatistics),
    vscode.commands.registerCommand('studyBridge.optimizeDeck', optimize),
  ];
}
