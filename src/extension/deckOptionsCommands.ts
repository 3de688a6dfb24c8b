import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { DeckNode } from '../views/decksView';
import { DeckOptionsPanels, type DeckOptionsPanel } from '../views/deckOptionsPanel';
import { commandGuard, UserFacingError } from './commands';

export interface DeckOptionsCommandDeps {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  getClient: () => BridgeClient | undefined;
  requireClient(): BridgeClient;
  /** After a save (the due counts follow the deck's new limits). */
  onSaved: (deckId: string) => void;
}

/**
 * "Deck Options…": from a deck in the Review Decks view, or from the command
 * palette (a quick pick of the decks). A deckId string works for scripted
 * callers. Answers the panel.
 */
export function registerDeckOptions(deps: DeckOptionsCommandDeps): {
  panels: DeckOptionsPanels;
  disposables: vscode.Disposable[];
} {
  const guarded = commandGuard(deps.log);
  const panels = new DeckOptionsPanels(deps);
  const openDeckOptions = guarded(
    'deck options',
    async (target?: DeckNode | { deckId: string; title?: string } | string): Promise<DeckOptionsPanel | undefined> => {
      const deck = await pickDeck(deps.requireClient(), target);
      return deck ? panels.open(deck) : undefined;
    },
  );
  return {
    panels,
    disposables: [panels, vscode.commands.registerCommand('studyBridge.deckOptions', openDeckOptions)],
  };
}

async function pickDeck(client: BridgeClient, target: unknown): Promise<{ deckId: string; title: string } | undefined> {
  if (target instanceof DeckNode) return { deckId: target.deck.deckId, title: target.deck.title };
  const decks = await client.listDecks();
  const wanted = typeof target === 'string' ? target : (target as { deckId?: unknown } | undefined)?.deckId;
  if (typeof wanted === 'string') {
    const deck = decks.find((d) => d.deckId === wanted);
    if (!deck) throw new UserFacingError(`No review deck ${wanted}.`);
    return { deckId: deck.deckId, title: deck.title };
  }
  if (!decks.length) throw new UserFacingError('No review decks yet.');
  const pick = await vscode.window.showQuickPick(
    decks.map((d) => ({
      label: d.title,
      description: `${d.cardCount} ${d.cardCount === 1 ? 'card' : 'cards'}`,
      deck: d,
    })),
    { title: 'Deck Options', placeHolder: 'Pick a deck' },
  );
  return pick && { deckId: pick.deck.deckId, title: pick.deck.title };
}
