import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import { CardNode } from '../views/cardTree';
import type { MindMapPanel } from '../views/mindMapPanel';
import type { MindMapPanels } from '../views/mindMapPanels';
import { StudySetNode } from '../views/studySetsView';
import { commandGuard, UserFacingError } from './commands';

export interface MindMapCommandDeps {
  log: vscode.LogOutputChannel;
  requireClient(): BridgeClient;
  mindMaps: MindMapPanels;
}

/**
 * "Open Mind Map": from a set (or a card: its set) in the Study Sets view, or
 * from the command palette (a quick pick of the sets). A topicid string works
 * for scripted callers. Answers the panel.
 */
export function registerMindMapCommands(deps: MindMapCommandDeps): vscode.Disposable[] {
  const guarded = commandGuard(deps.log);
  const openMindMap = guarded(
    'open mind map',
    async (target?: StudySetNode | CardNode | string): Promise<MindMapPanel | undefined> => {
      const studySet = await pickStudySet(deps.requireClient(), target);
      return studySet ? deps.mindMaps.open(studySet) : undefined;
    },
  );
  return [vscode.commands.registerCommand('studyBridge.openMindMap', openMindMap)];
}

async function pickStudySet(client: BridgeClient, target: unknown): Promise<StudySet | undefined> {
  if (target instanceof StudySetNode || target instanceof CardNode) return target.studySet;
  const sets = await client.listStudySets();
  if (typeof target === 'string') {
    const set = sets.find((s) => s.topicid === target);
    if (!set) throw new UserFacingError(`No study set ${target}.`);
    return set;
  }
  if (!sets.length) throw new UserFacingError('There are no study sets yet. Create one in the Study Sets view.');
  const pick = await vscode.window.showQuickPick(
    [...sets]
      .sort((a, b) => a.title.localeCompare(b.title))
      .map((s) => ({
        label: s.title,
        description: `${s.noteCount} ${s.noteCount === 1 ? 'card' : 'cards'}`,
        studySet: s,
      })),
    { title: 'Open Mind Map', placeHolder: 'Pick a study set' },
  );
  return pick?.studySet;
}
