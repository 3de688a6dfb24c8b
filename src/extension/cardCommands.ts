import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import type { DeletePreview } from '../client/cardsApi';
import { CardNode } from '../views/cardTree';
import { StudySetNode } from '../views/studySetsView';
import { commandGuard, UserFacingError, type CommandGuard } from './commandGuard';
import { modalConsent, type Consent } from './consent';
import { snapshotCommands } from './snapshotCommands';

/** The first 32 code points: what the title route compares (expectedPrefix). */
const prefix32 = (s: string) => [...s].slice(0, 32).join('');

export type { Consent } from './consent';

export interface CardCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient: () => BridgeClient;
  refreshViews(): void;
  /** Selects the card in the Study Sets view once it is loaded. */
  revealCard(studySet: StudySet, noteid: string): Promise<void>;
  /** Makes the set no longer "open" in this window (GET /context), so a restore may replace it. */
  closeStudySet(topicid: string): Promise<void>;
  /** Opens the set again, as a click on it does (selected and expanded in the Study Sets view). */
  showStudySet(studySet: StudySet): Promise<void>;
}

/**
 * The context-menu commands on cards and sets. Each takes the tree node it was
 * invoked on; a text argument after it (title, comment) replaces the input box
 * for scripted use. Writes go through the typed client with the owner token:
 * they are the person's own edits.
 */
export function registerCardCommands(deps: CardCommandDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);
  const { requireClient } = deps;
  const { newCard, renameCard, addComment } = cardEdits(deps, guarded);
  const deleteCard = deleteCardCommand(deps, guarded);
  const { snapshotNow, restoreSnapshot } = snapshotCommands(deps, guarded);

  /** A click on a card: the bridge shows it (POST /notes/{id}/focus, asynchronous). */
  const focusCard = guarded('show card', async (target?: CardNode) => {
    const card = requireCard(target);
    return requireClient().cards.focus(card.noteid, card.studySet.topicid);
  });

  return [
    vscode.commands.registerCommand('studyBridge.newCard', newCard),
    vscode.commands.registerCommand('studyBridge.renameCard', renameCard),
    vscode.commands.registerCommand('studyBridge.addComment', addComment),
    vscode.commands.registerCommand('studyBridge.deleteCard', deleteCard),
    vscode.commands.registerCommand('studyBridge.snapshotNow', snapshotNow),
    vscode.commands.registerCommand('studyBridge.restoreSnapshot', restoreSnapshot),
    vscode.commands.registerCommand('studyBridge.focusCard', focusCard),
  ];
}

/** New card, rename, comment: a text argument replaces the input box for scripted use. */
function cardEdits(deps: CardCommandDeps, guarded: CommandGuard) {
  const { requireClient } = deps;
  const ask = (given: unknown, options: vscode.InputBoxOptions) =>
    typeof given === 'string'
      ? Promise.resolve(given)
      : vscode.window.showInputBox({ ignoreFocusOut: true, ...options });

  const newCard = guarded('new card', async (target?: StudySetNode | CardNode, title?: string) => {
    const { studySet, parent } = cardTarget(target);
    const name = await ask(title, {
      title: parent ? `New card under “${parent.card.title}”` : `New card in “${studySet.title}”`,
      prompt: 'Title of the new card',
      validateInput: (v) => (v.trim() ? undefined : 'Enter a title'),
    });
    if (!name?.trim()) return undefined;
    const created = await requireClient().cards.create(studySet.topicid, {
      parentNoteId: parent?.noteid,
      title: name.trim(),
    });
    deps.refreshViews();
    await deps.revealCard(studySet, created.noteid);
    return created;
  });

  const renameCard = guarded('rename card', async (target?: CardNode, title?: string) => {
    const card = requireCard(target);
    const client = requireClient();
    // The tree cuts titles at 64 characters: edit the whole one.
    const [note] = (await client.cards.batchGet([card.noteid])).notes;
    if (!note) throw new UserFacingError('That card no longer exists.');
    const name = await ask(title, {
      title: 'Rename card',
      prompt: 'New title',
      value: note.title,
      validateInput: (v) => (v.trim() ? undefined : 'Enter a title'),
    });
    if (!name?.trim() || name.trim() === note.title) return undefined;
    const result = await client.cards.setTitle(card.noteid, name.trim(), prefix32(note.title));
    deps.refreshViews();
    return result;
  });

  const addComment = guarded('add comment', async (target?: CardNode, text?: string) => {
    const card = requireCard(target);
    const comment = await ask(text, {
      title: `Comment on “${card.card.title}”`,
      prompt: 'Comment (a line studybridge://note/<id> links to that card)',
      validateInput: (v) => (v.trim() ? undefined : 'Enter a comment'),
    });
    if (!comment?.trim()) return undefined;
    const result = await requireClient().cards.addComment(card.noteid, comment);
    deps.refreshViews();
    return result;
  });
  return { newCard, renameCard, addComment };
}

/** Shows the dry-run (what goes, which children move up) in a modal, then deletes on consent. */
function deleteCardCommand(deps: CardCommandDeps, guarded: CommandGuard) {
  const { requireClient } = deps;
  return guarded('delete card', async (target?: CardNode, opts: { consent?: Consent } = {}) => {
    const consent = opts.consent ?? modalConsent;
    const card = requireCard(target);
    const client = requireClient();
    const preview = await client.cards.previewDelete([card.noteid]);
    const { info, detail } = deletePreviewText(preview, card.noteid);
    const pick = await consent(`Delete “${info?.title ?? card.card.title}”?`, detail, 'Delete');
    if (pick !== 'Delete') return undefined;
    const result = await client.cards.delete([card.noteid]);
    deps.refreshViews();
    return result;
  });
}

/** The delete dry-run in words: how many cards go, which children move up. */
function deletePreviewText(preview: DeletePreview, noteid: string) {
  const count = Array.isArray(preview.wouldDelete)
    ? preview.wouldDelete.length
    : Number(preview.wouldDelete ?? preview.cards?.length ?? 1);
  const info = preview.cards?.find((c) => c.noteid === noteid) ?? preview.cards?.[0];
  const moved = info?.orphanedChildren ?? 0;
  const detail = [
    `${count} ${count === 1 ? 'card' : 'cards'} will be deleted.`,
    moved
      ? `Its ${moved} ${moved === 1 ? 'child moves' : 'children move'} up to its parent (${info?.descendants ?? moved} ${(info?.descendants ?? moved) === 1 ? 'card' : 'cards'} kept in all).`
      : 'It has no children.',
    'A snapshot of the set can bring it back.',
  ].join(' ');
  return { info, detail };
}

function cardTarget(target: unknown): { studySet: StudySet; parent?: CardNode } {
  if (target instanceof CardNode) return { studySet: target.studySet, parent: target };
  if (target instanceof StudySetNode) return { studySet: target.studySet };
  throw new UserFacingError('Choose a study set or a card in the Study Sets view (right-click → New Card…).');
}

function requireCard(target: unknown): CardNode {
  if (target instanceof CardNode) return target;
  throw new UserFacingError('Choose a card in the Study Sets view first (right-click a card).');
}
