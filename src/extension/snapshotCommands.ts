// Snapshot Now and Restore Snapshot on a study set's context menu. A restore
// that the bridge refuses (the person's own edits, the set open here) is
// explained in a modal before anything is forced.
import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import { BridgeClientError } from '../client/bridgeClient';
import type { ChangedNode, Snapshot } from '../client/cardsApi';
import { StudySetNode } from '../views/studySetsView';
import { UserFacingError, type CommandGuard } from './commandGuard';
import { modalConsent, type Consent } from './consent';

/** Changed cards listed in the restore conflict before "and N more". */
const CHANGED_SHOWN = 12;

/** What the snapshot commands need of the window (a part of CardCommandDeps). */
export interface SnapshotCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient: () => BridgeClient;
  refreshViews(): void;
  /** Makes the set no longer "open" in this window (GET /context), so a restore may replace it. */
  closeStudySet(topicid: string): Promise<void>;
  /** Opens the set again, as a click on it does (selected and expanded in the Study Sets view). */
  showStudySet(studySet: StudySet): Promise<void>;
}

export function snapshotCommands(deps: SnapshotCommandDeps, guarded: CommandGuard) {
  const snapshotNow = guarded('snapshot', async (target?: StudySetNode) => {
    const set = requireSet(target);
    const snap = await deps.requireClient().cards.createSnapshot(set.topicid, 'Snapshot from VS Code');
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
      const client = deps.requireClient();
      const snap = await pickSnapshot(client, set, snapshotId);
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
          const next = await answerRefusal(err, force, set, consent, deps);
          if (next === 'stop') return undefined;
          if (next === 'force') force = true;
        }
      }
      return undefined;
    },
  );

  return { snapshotNow, restoreSnapshot };
}

/** The snapshot given by id, else the one the person picks from the set's list. */
async function pickSnapshot(
  client: BridgeClient,
  set: StudySet,
  snapshotId: string | undefined,
): Promise<Snapshot | undefined> {
  const snapshots = await client.cards.snapshots(set.topicid);
  if (typeof snapshotId === 'string') return snapshots.find((s) => s.snapshotId === snapshotId);
  if (!snapshots.length) throw new UserFacingError(`“${set.title}” has no snapshots yet. Take one with Snapshot Now.`);
  const pick = await vscode.window.showQuickPick(
    snapshots.map((s) => ({
      label: s.label || s.description || s.kind,
      description: new Date(s.createdAt).toLocaleString(),
      detail: `${s.noteCount} ${s.noteCount === 1 ? 'card' : 'cards'} · ${s.kind}${s.version !== undefined ? ` · version ${s.version}` : ''}`,
      snapshot: s,
    })),
    { title: `Restore “${set.title}” to…`, placeHolder: 'Pick a snapshot' },
  );
  return pick?.snapshot;
}

/**
 * A refused restore, explained: 'force' (overwrite the person's edits), 'retry' (the set was closed here)
 * or 'stop' (the person said no). Any other error is thrown on.
 */
async function answerRefusal(
  err: unknown,
  force: boolean,
  set: StudySet,
  consent: Consent,
  deps: SnapshotCommandDeps,
): Promise<'force' | 'retry' | 'stop'> {
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
    return answer === 'Restore Anyway' ? 'force' : 'stop';
  }
  if (err.code === 'STUDY_SET_IN_USE') {
    const answer = await consent(
      `“${set.title}” is open in this window.`,
      "A restore replaces the set's cards, so it is refused while the set is open (an agent could otherwise swap them under your eyes). Close the set here and restore?",
      'Close and Restore',
    );
    if (answer !== 'Close and Restore') return 'stop';
    await deps.closeStudySet(set.topicid);
    return 'retry';
  }
  throw err;
}

function requireSet(target: unknown): StudySet {
  if (target instanceof StudySetNode) return target.studySet;
  throw new UserFacingError('Choose a study set in the Study Sets view first (right-click a set).');
}
