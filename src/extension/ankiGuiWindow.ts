import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import type { ReviewPanels } from '../views/reviewPanel';
import type { AddCardDraft, WorkbenchUi } from './workbenchUi';

/**
 * AnkiConnect's Add Cards and reviewer in this window. guiAddCards with a
 * note asks the person for the new card's title (the note's first field, to
 * edit) in the deck's study set, its text the other fields; nothing is added
 * until they accept. Without a note it runs New Card as the person would.
 * guiCurrentCard reads the card of the review panel in front.
 */

export interface AnkiGuiDeps {
  ui: WorkbenchUi;
  log: vscode.LogOutputChannel;
  requireClient: () => BridgeClient;
  refreshViews(): void;
  revealCard(studySet: { topicid: string; title: string }, noteid: string): Promise<void>;
  reviewPanels: ReviewPanels;
}

async function addCard(deps: AnkiGuiDeps, draft: AddCardDraft): Promise<void> {
  const preview = draft.text.replace(/\s+/g, ' ').slice(0, 80);
  const title = await vscode.window.showInputBox({
    title: `Add a card to “${draft.setTitle}” (asked through AnkiConnect)`,
    prompt: draft.text
      ? `Title of the card; its text: ${preview}${draft.text.length > 80 ? '…' : ''}`
      : 'Title of the card',
    value: draft.title,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter a title'),
  });
  if (!title?.trim()) return;
  const created = await deps
    .requireClient()
    .cards.create(draft.topicid, { title: title.trim(), ...(draft.text ? { text: draft.text } : {}) });
  deps.refreshViews();
  await deps.revealCard({ topicid: draft.topicid, title: draft.setTitle }, created.noteid);
}

export function wireAnkiGui(deps: AnkiGuiDeps): vscode.Disposable[] {
  deps.ui.reviewCard = () => deps.reviewPanels.shownCard();
  return [
    deps.ui.onDidAskAddCard((draft) => {
      const run = draft ? addCard(deps, draft) : vscode.commands.executeCommand('studyBridge.newCard');
      void Promise.resolve(run).catch((e: unknown) => {
        const message = e instanceof Error ? e.message : String(e);
        deps.log.warn(`AnkiConnect add card: ${message}`);
        void vscode.window.showErrorMessage(`Study Bridge: the card was not added: ${message}`);
      });
    }),
    { dispose: () => (deps.ui.reviewCard = () => undefined) },
  ];
}
