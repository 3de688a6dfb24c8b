import * as vscode from 'vscode';
import type { BridgeClient, Deck } from '../client/bridgeClient';
import type { DeckCard } from '../client/cardsApi';
import { BridgeTreeProvider, MessageNode, type BridgeNode } from './bridgeTreeProvider';

/** Review Decks view (GET /decks): decks with their due counts; under each, its review cards. */
export class DecksProvider extends BridgeTreeProvider {
  protected async loadRoots(client: BridgeClient): Promise<BridgeNode[]> {
    return (await client.listDecks()).map((d) => new DeckNode(d));
  }
}

export class DeckNode implements BridgeNode {
  readonly id: string;
  constructor(readonly deck: Deck) {
    this.id = `deck/${deck.deckId}`;
  }
  treeItem(): vscode.TreeItem {
    const { cardCount, dueCount, nextDueAt } = this.deck;
    const item = new vscode.TreeItem(
      this.deck.title,
      cardCount > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('layers');
    // Due first: the number a person looks for, and the first to survive a narrow sidebar.
    // Nothing due: when the next card comes due is the number that tells the person when to come back.
    const next = dueCount === 0 && nextDueAt ? `next ${untilText(Date.parse(nextDueAt) - Date.now())}` : '';
    item.description = [
      typeof dueCount === 'number' ? `${dueCount} due` : '',
      next,
      `${cardCount} ${cardCount === 1 ? 'card' : 'cards'}`,
    ]
      .filter(Boolean)
      .join(' · ');
    item.tooltip = [
      this.deck.title,
      this.deck.deckId,
      nextDueAt ? `next card due ${new Date(nextDueAt).toLocaleString()}` : '',
      `last modified ${this.deck.lastModifiedAt}`,
    ]
      .filter(Boolean)
      .join('\n');
    item.contextValue = 'studyBridge.deck';
    return item;
  }
  async children(client: BridgeClient): Promise<BridgeNode[]> {
    const { cards } = await client.cards.deckCards(this.deck.deckId);
    if (cards.length === 0) return [new MessageNode(`${this.id}/empty`, 'No review cards yet')];
    const now = Date.now();
    return cards.map((c) => new DeckCardNode(this.id, c, now));
  }
}

/** One review card: its due date and FSRS state; a deleted source is marked. */
export class DeckCardNode implements BridgeNode {
  readonly id: string;
  constructor(
    parentId: string,
    readonly card: DeckCard,
    private readonly now: number,
  ) {
    this.id = `${parentId}/${card.cardNoteId}`;
  }
  treeItem(): vscode.TreeItem {
    const c = this.card;
    const front = c.title.trim() || c.question?.trim() || (c.sourceAlive ? '(untitled card)' : '(source card deleted)');
    const item = new vscode.TreeItem(front, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const dueAt = c.due ? Date.parse(c.due) : NaN;
    const isDue = Number.isFinite(dueAt) && dueAt <= this.now;
    item.iconPath = !c.sourceAlive
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
      : new vscode.ThemeIcon(isDue ? 'bell-dot' : 'calendar');
    const due = !Number.isFinite(dueAt) ? '' : isDue ? 'due now' : `due ${new Date(dueAt).toISOString().slice(0, 10)}`;
    const state = stateName(c.state);
    item.description = [c.sourceAlive ? '' : 'source deleted', due, state].filter(Boolean).join(' · ');
    item.tooltip = [
      front,
      c.sourceAlive
        ? `source card ${c.sourceNoteId}`
        : 'The source card was deleted: this review card keeps its front, its back is empty.',
      c.due ? `due ${c.due}` : '',
      `state: ${state}`,
    ]
      .filter(Boolean)
      .join('\n');
    item.contextValue = c.sourceAlive ? 'studyBridge.deckCard' : 'studyBridge.deckCard.orphan';
    return item;
  }
}

/** FSRS states by number (ts-fsrs `State`), in case the route answers the enum rather than its name. */
const STATE_NAMES = ['new', 'learning', 'review', 'relearning'];
function stateName(state: string | number | null | undefined): string {
  return typeof state === 'number' ? (STATE_NAMES[state] ?? String(state)) : String(state ?? '').toLowerCase();
}

/** "in 5 min", "in 3 h", "in 2 d": how long until a due time, coarse as a sidebar needs. */
export function untilText(ms: number): string {
  const min = Math.max(1, Math.round(ms / 60_000));
  if (min < 60) return `in ${min} min`;
  const h = Math.round(min / 60);
  if (h < 48) return `in ${h} h`;
  return `in ${Math.round(h / 24)} d`;
}
