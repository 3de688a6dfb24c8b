import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { PdfReaderEditorProvider } from '../editors/pdfReaderEditor';
import { CardNode } from '../views/cardTree';
import { listExcerptCards, type ExcerptCard } from '../views/excerptCards';
import { StudySetNode } from '../views/studySetsView';
import { commandGuard, UserFacingError } from './commands';

export interface GoToCardDeps {
  log: vscode.LogOutputChannel;
  requireClient(): BridgeClient;
  reader: Pick<PdfReaderEditorProvider, 'openBook'>;
  /** Selects the card in the Study Sets view. */
  revealCard(studySet: { topicid: string; title: string }, noteid: string): Promise<void>;
}

/** Scripted callers (the extension tests) learn when the pick is on screen, to photograph it. */
export interface GoToCardOptions {
  onShown?: () => void;
}

/**
 * Study Bridge: Go to Card…: a quick pick of the excerpt cards (title, book,
 * page); the chosen one opens in the reader at its page, its rectangle
 * flashing (as review's "Open p. N" and a mind-map click do), and is selected
 * in the Study Sets view. From a set's context menu it lists that set's
 * cards, from a card's its subtree (a lone excerpt card goes straight there);
 * `{ noteid }` goes to that card without asking.
 */
export function registerGoToCard(deps: GoToCardDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);

  const goTo = async (card: ExcerptCard) => {
    const session = await deps.reader.openBook({
      bookmd5: card.bookmd5,
      topicid: card.topicid,
      page: card.page,
      noteid: card.noteid,
    });
    void deps.revealCard({ topicid: card.topicid, title: card.setTitle }, card.noteid).catch(() => undefined);
    return session;
  };

  const goToCard = guarded(
    'go to card',
    async (target?: StudySetNode | CardNode | { noteid: string; topicid?: string }, opts: GoToCardOptions = {}) => {
      const client = deps.requireClient();
      let scope: { topicid?: string; under?: string } = {};
      if (target instanceof StudySetNode) scope = { topicid: target.studySet.topicid };
      else if (target instanceof CardNode) scope = { topicid: target.studySet.topicid, under: target.noteid };
      else if (target && typeof target.noteid === 'string') {
        const topicid = target.topicid ?? (await client.cards.batchGet([target.noteid])).notes[0]?.topicid;
        if (!topicid) throw new UserFacingError(`No card ${target.noteid}.`);
        scope = { topicid, under: target.noteid };
      }
      const cards = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: 'Study Bridge: reading the cards' },
        () => listExcerptCards(client, scope),
      );
      const where =
        target instanceof StudySetNode
          ? ` in “${target.studySet.title}”`
          : target instanceof CardNode
            ? ` under “${target.card.title}”`
            : '';
      if (scope.under && !(target instanceof CardNode)) {
        // A card named directly (scripted): no question to ask.
        const card = cards.find((c) => c.noteid === scope.under);
        if (!card) throw new UserFacingError(`Card ${scope.under} has no place in a book.`);
        return goTo(card);
      }
      if (!cards.length)
        throw new UserFacingError(
          `No card${where} has a place in a book (cards made from a selection in the reader do).`,
        );
      // A card without excerpt cards below it: straight to it.
      if (target instanceof CardNode && cards.length === 1) return goTo(cards[0]);

      const oneSet = new Set(cards.map((c) => c.topicid)).size === 1;
      const items = cards.map((c) => ({
        label: c.title,
        description: `${c.filename || `book ${c.bookmd5.slice(0, 8)}`} · p. ${c.page}`,
        detail: oneSet ? undefined : c.setTitle,
        card: c,
      }));
      const pick = vscode.window.createQuickPick<(typeof items)[number]>();
      pick.title = `Go to Card${where}`;
      pick.placeholder = 'Type part of a card title, book or page';
      pick.matchOnDescription = true;
      pick.matchOnDetail = true;
      pick.items = items;
      const chosen = await new Promise<ExcerptCard | undefined>((resolve) => {
        pick.onDidAccept(() => {
          resolve(pick.selectedItems[0]?.card ?? pick.activeItems[0]?.card);
          pick.hide();
        });
        pick.onDidHide(() => resolve(undefined));
        pick.show();
        opts.onShown?.();
      });
      pick.dispose();
      return chosen ? goTo(chosen) : undefined;
    },
  );

  return [vscode.commands.registerCommand('studyBridge.goToCard', goToCard)];
}
