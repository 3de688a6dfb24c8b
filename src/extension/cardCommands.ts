import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import { BridgeClientError } from '../client/bridgeClient';
import type { ChangedNode, Snapshot } from '../client/cardsApi';
import { CardNode } from '../views/cardTree';
import { StudySetNode } from '../views/studySetsView';
import { commandGuard, UserFacingError } from './commands';

/** The first 32 code points: what the title route compares (expectedPrefix). */
const prefix32 = (s: string) => [...s].slice(0, 32).join('');
/** Changed cards listed in the restore conflict before "and N more". */
const CHANGED_SHOWN = 12;

/**
 * Asks the person to consent in a modal; answers the button chosen. Scripted
 * callers (the extension tests: VS Code refuses modal dialogs under test) pass
 * their own as `{ consent }` after the command's other arguments.
 */
export type Consent = (message: string, detail: string, button: string) => Thenable<string | undefined>;
const modalConsent: Consent = (message, detail, button) =>
  vscode.window.showWarningMessage(message, { modal: true, detail }, button);

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

  /** Shows the dry-run (what goes, which children move up) in a modal, then deletes on consent. */
  const deleteCard = guarded('delete card', async (target?: CardNode, opts: { consent?: Consent } = {}) => {
    const consent = opts.consent ?? modalConsent;
    const card = requireCard(target);
    const client = requireClient();
    const preview = await client.cards.previewDelete([card.noteid]);
    const count = Array.isArray(preview.wouldDelete)
      ? preview.wouldDelete.length
      : Number(preview.wouldDelete ?? preview.cards?.length ?? 1);
    const info = preview.cards?.find((c) => c.noteid === card.noteid) ?? preview.cards?.[0];
    const moved = info?.orphanedChildren ?? 0;
    const detail = [
      `${count} ${count === 1 ? 'card' : 'cards'} will be deleted.`,
      moved
        ? `Its ${moved} ${moved === 1 ? 'child moves' : 'children move'} up to its parent (${info?.descendants ?? moved} ${(info?.descendants ?? moved) === 1 ? 'card' : 'cards'} kept in all).`
        : 'It has no children.',
      'A snapshot of the set can bring it back.',
    ].join(' ');
    const pick = await consent(`Delete “${info?.title ?? card.card.title}”?`, detail, 'Delete');
    if (pick !== 'Delete') return undefined;
    const result = await client.cards.delete([card.noteid]);
    deps.refreshViews();
    return result;
  });

  const snapshotNow = guarded('snapshot', async (target?: StudySetNode) => {
    const set = requireSet(target);
    const snap = await requireClient().cards.createSnapshot(set.topicid, 'Snapshot from VS Code');
    void vscode.window.showInformationMessage(
      snap.created
        ? `Snapshot of “${set.title}” taken (${snap.noteCount} cards).`
        : `“${set.title}” has not changed since its last snapshot; that one is kept.`,
    );
    return snap;
  });

  /** Quick pick of the set's snapshots → restore; user edits and an open set are explained before anything is forced. */
  const restoreSnapshot = guarded(
    'restore snapshot',
    async (target?: StudySetNode, snapshotId?: string, opts: { consent?: Consent } = {}) => {
      const consent = opts.consent ?? modalConsent;
      const set = requireSet(target);
      const client = requireClient();
      let snap: Snapshot | undefined;
      const snapshots = await client.cards.snapshots(set.topicid);
      if (typeof snapshotId === 'string') snap = snapshots.find((s) => s.snapshotId === snapshotId);
      else {
        if (!snapshots.length)
          throw new UserFacingError(`“${set.title}” has no snapshots yet. Take one with Snapshot Now.`);
        const pick = await vscode.window.showQuickPick(
          snapshots.map((s) => ({
            label: s.label || s.description || s.kind,
            description: new Date(s.createdAt).toLocaleString(),
            detail: `${s.noteCount} ${s.noteCount === 1 ? 'card' : 'cards'} · ${s.kind}${s.version !== undefined ? ` · version ${s.version}` : ''}`,
            snapshot: s,
          })),
          { title: `Restore “${set.title}” to…`, placeHolder: 'Pick a snapshot' },
        );
        snap = pick?.snapshot;
      }
      if (!snap) return undefined;
      let force = false;
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          const result = await client.cards.restoreSnapshot(snap.snapshotId, { force });
          deps.refreshViews();
          // The person sees what came back: the set open and expanded, also when it was folded before.
          await deps.showStudySet(set).catch((e: Error) => deps.log.warn(`showing the restored set: ${e.message}`));
          void vscode.window.showInformationMessage(
            `“${set.title}” restored to the snapshot of ${new Date(snap.createdAt).toLocaleString()} (the state before is kept as a protection snapshot).`,
          );
          return result;
        } catch (err) {
          if (!(err instanceof BridgeClientError)) throw err;
          if (err.code === 'USER_EDITS_PRESENT' && !force) {
            const changed = (err.details?.changedNodes ?? []) as ChangedNode[];
            const titles = changed.slice(0, CHANGED_SHOWN).map((c) => `• ${c.title || c.noteid}`);
            if (changed.length > CHANGED_SHOWN) titles.push(`…and ${changed.length - CHANGED_SHOWN} more`);
            const answer = await consent(
              `You changed ${changed.length} ${changed.length === 1 ? 'card' : 'cards'} of “${set.title}” since this snapshot. Restore anyway?`,
              `Restoring overwrites your edits of:\n${titles.join('\n')}\n\nA protection snapshot of the current state is taken first.`,
              'Restore Anyway',
            );
            if (answer !== 'Restore Anyway') return undefined;
            force = true;
            continue;
          }
          if (err.code === 'STUDY_SET_IN_USE') {
            const answer = await consent(
              `“${set.title}” is open in this window.`,
              "A restore replaces the set's cards, so it is refused while the set is open (an agent could otherwise swap them under your eyes). Close the set here and restore?",
              'Close and Restore',
            );
            if (answer !== 'Close and Restore') return undefined;
            await deps.closeStudySet(set.topicid);
            continue;
          }
          throw err;
        }
      }
      return undefined;
    },
  );

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

function cardTarget(target: unknown): { studySet: StudySet; parent?: CardNode } {
  if (target instanceof CardNode) return { studySet: target.studySet, parent: target };
  if (target instanceof StudySetNode) return { studySet: target.studySet };
  throw new UserFacingError('Choose a study set or a card in the Study Sets view (right-click → New Card…).');
}

function requireCard(target: unknown): CardNode {
  if (target instanceof CardNode) return target;
  throw new UserFacingError('Choose a card in the Study Sets view first (right-click a card).');
}

function requireSet(target: unknown): StudySet {
  if (target instanceof StudySetNode) return target.studySet;
  throw new UserFacingError('Choose a study set in the Study Sets view first (right-click a set).');
}
