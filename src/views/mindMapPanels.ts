import * as vscode from 'vscode';
import type { StudySet } from '../client/bridgeClient';
import { MIND_MAP_VIEW_TYPE } from '../webviews/mindMap/protocol';
import { MindMapPanel, type MindMapDeps } from './mindMapPanel';

/** One panel per study set: opening a set's map again brings its panel forward. */
export class MindMapPanels implements vscode.Disposable {
  private readonly panels = new Map<string, MindMapPanel>();
  private readonly subscriptions: vscode.Disposable[];
  private readonly restored = new vscode.EventEmitter<MindMapPanel>();
  /** A map came back after a window reload (tests wait on it). */
  readonly onDidRestore = this.restored.event;

  constructor(private readonly deps: MindMapDeps) {
    this.subscriptions = [
      deps.onLibraryChange(() => {
        for (const p of this.panels.values()) p.scheduleRedraw();
      }),
      deps.onBridgeChange(({ mode }) => {
        if (mode === 'hosting' || mode === 'attached') for (const p of this.panels.values()) p.scheduleRedraw();
      }),
      // After a window reload VS Code hands back each open map's panel with the state its page saved
      // (the set, folds and zoom): the page keeps its folds and zoom, the host reads the set again.
      vscode.window.registerWebviewPanelSerializer(MIND_MAP_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const set = (state as { studySet?: { topicid?: unknown; title?: unknown } } | undefined)?.studySet;
          if (typeof set?.topicid !== 'string' || this.panels.has(set.topicid)) {
            panel.dispose();
            return;
          }
          const studySet =
            (
              await deps
                .getClient()
                ?.listStudySets()
                .catch(() => undefined)
            )?.find((s) => s.topicid === set.topicid) ??
            ({ topicid: set.topicid, title: typeof set.title === 'string' ? set.title : 'Mind map' } as StudySet);
          this.restored.fire(this.track(new MindMapPanel(studySet, deps, panel)));
        },
      }),
      this.restored,
    ];
  }

  open(studySet: StudySet): MindMapPanel {
    const known = this.panels.get(studySet.topicid);
    if (known) {
      known.panel.reveal();
      return known;
    }
    return this.track(new MindMapPanel(studySet, this.deps));
  }

  private track(panel: MindMapPanel): MindMapPanel {
    this.panels.set(panel.studySet.topicid, panel);
    panel.onDidDispose(() => this.panels.delete(panel.studySet.topicid));
    return panel;
  }

  /** The open map of a set (tests, commands). */
  panelFor(topicid: string): MindMapPanel | undefined {
    return this.panels.get(topicid);
  }

  /** Every open map reads its set again (the bridge restarted). */
  redrawAll(): void {
    for (const p of this.panels.values()) p.scheduleRedraw();
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const p of [...this.panels.values()]) p.dispose();
  }
}
