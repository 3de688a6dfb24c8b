import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { fetchDeckStats } from '../client/deckStatsApi';
import { openPagePanel, pageRoots, webviewPage } from '../editors/webviewPage';
import { HostChannel } from '../webviews/channel/hostChannel';
import { DECK_STATS_BODY } from '../webviews/deckStats/markup';
import { deckStatsGuards, type DeckStatsProtocol, type DeckStatsViewState } from '../webviews/deckStats/protocol';
import { statsModel } from './deckStatsModel';

/** What a Statistics panel shows: one deck, or every deck (deckId undefined). */
export interface StatsTarget {
  deckId?: string;
  title: string;
}

const FORECAST_DAYS = 90;
const HISTORY_DAYS = 365;
const ALL = '*';

export interface DeckStatsPanelDeps {
  extensionUri: vscode.Uri;
  getClient: () => BridgeClient | undefined;
  log: vscode.LogOutputChannel;
  /** Anyone's write to the library (a grade in the review panel, an agent's): open panels fetch again. */
  onLibraryChange: vscode.Event<unknown>;
  /**
   * The bridge came up or moved (hosting, attached): open panels fetch again. A panel VS Code restores after a window
   * reload is handed back before this window's bridge listens, and showed "The bridge is not running." for good.
   */
  onBridgeChange: vscode.Event<{ mode: string }>;
}

export const DECK_STATS_VIEW_TYPE = 'studyBridge.deckStats';

/**
 * The Statistics panels: one per deck and one for all decks. The host fetches
 * GET /decks/{id}/stats through the client (every deck's, added up, for all
 * decks), keeps the state, and sends it to the page, which draws it. A write
 * to the library fetches again (the drawing stays until the new one comes);
 * after a window reload VS Code hands the panel back with the target its page
 * kept, and the host fetches its statistics anew.
 */
export class DeckStatsPanels implements vscode.Disposable {
  private readonly panels = new Map<string, Entry>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly deps: DeckStatsPanelDeps) {
    this.subscriptions = [
      deps.onLibraryChange(() => {
        for (const entry of this.panels.values()) this.follow(entry);
      }),
      deps.onBridgeChange(({ mode }) => {
        if (mode === 'hosting' || mode === 'attached') for (const entry of this.panels.values()) this.follow(entry);
      }),
      vscode.window.registerWebviewPanelSerializer(DECK_STATS_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const target = (state as { target?: { deckId?: unknown; title?: unknown } } | undefined)?.target;
          const deckId = typeof target?.deckId === 'string' ? target.deckId : undefined;
          if (typeof target?.title !== 'string' || this.panels.has(deckId ?? ALL)) {
            panel.dispose();
            return;
          }
          panel.webview.options = { enableScripts: true, localResourceRoots: pageRoots(deps.extensionUri) };
          await this.load(this.attach({ deckId, title: target.title }, panel));
        },
      }),
    ];
  }

  /** The state of a target's open panel (tests). */
  state(deckId?: string): DeckStatsViewState | undefined {
    return this.panels.get(deckId ?? ALL)?.state;
  }

  /** Opens (or reveals and reloads) the target's panel; answers once its statistics are loaded. */
  async open(target: StatsTarget): Promise<DeckStatsViewState> {
    const existing = this.panels.get(target.deckId ?? ALL);
    if (existing) {
      existing.panel.reveal();
      return this.load(existing);
    }
    const panel = openPagePanel(DECK_STATS_VIEW_TYPE, `Statistics: ${target.title}`, this.deps.extensionUri);
    return this.load(this.attach(target, panel));
  }

  /** Gives a panel (new, or restored by VS Code) its page and channel. */
  private attach(target: StatsTarget, panel: vscode.WebviewPanel): Entry {
    const key = target.deckId ?? ALL;
    panel.webview.html = webviewPage(panel.webview, this.deps.extensionUri, {
      title: 'Statistics',
      styles: [
        ['media', 'controls.css'],
        ['media', 'deckStats.css'],
      ],
      script: ['dist', 'webview', 'deckStats.js'],
      body: DECK_STATS_BODY,
    });
    const channel = new HostChannel<DeckStatsProtocol>(panel.webview, {
      guards: deckStatsGuards,
      log: (m) => this.deps.log.warn(m),
    });
    const entry: Entry = { target, panel, channel, state: { status: 'loading', title: target.title } };
    this.panels.set(key, entry);
    panel.onDidDispose(() => {
      channel.dispose();
      this.panels.delete(key);
    });
    channel.onReady(() => {
      channel.notify('target', { deckId: target.deckId ?? null, title: target.title });
      channel.notify('state', entry.state);
    });
    channel.on('refresh', () => void this.load(entry));
    return entry;
  }

  /** Fetches again after a change; changes during a fetch make one more fetch, not one each. */
  private follow(entry: Entry): void {
    if (entry.following) {
      entry.stale = true;
      return;
    }
    entry.following = this.load(entry, { quiet: true }).finally(() => {
      entry.following = undefined;
      if (entry.stale && this.panels.get(entry.target.deckId ?? ALL) === entry) {
        entry.stale = false;
        this.follow(entry);
      }
    });
  }

  /** Fetches the target's statistics; `quiet` (a library change) keeps the drawing until they come. */
  private async load(entry: Entry, { quiet = false } = {}): Promise<DeckStatsViewState> {
    const show = (state: DeckStatsViewState) => {
      entry.state = state;
      entry.channel.notify('state', state);
      return state;
    };
    if (!quiet) show({ status: 'loading', title: entry.target.title });
    try {
      const client = this.deps.getClient();
      if (!client) throw new Error('The bridge is not running.');
      const query = { forecastDays: FORECAST_DAYS, historyDays: HISTORY_DAYS, retrievability: true };
      const ids = entry.target.deckId ? [entry.target.deckId] : (await client.listDecks()).map((d) => d.deckId);
      const answers = [];
      // One deck at a time: the bridge's thread serves the window too.
      for (const id of ids) answers.push(await fetchDeckStats(client, id, query));
      return show({ status: 'ready', stats: statsModel(entry.target.title, answers, HISTORY_DAYS) });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.deps.log.warn(`statistics: ${message}`);
      return show({ status: 'error', title: entry.target.title, message });
    }
  }

  dispose(): void {
    for (const { panel } of [...this.panels.values()]) panel.dispose();
    this.panels.clear();
    for (const d of this.subscriptions) d.dispose();
  }
}

interface Entry {
  target: StatsTarget;
  panel: vscode.WebviewPanel;
  channel: HostChannel<DeckStatsProtocol>;
  state: DeckStatsViewState;
  /** The fetch that follows a library change, while it runs; `stale`: another change came meanwhile. */
  following?: Promise<unknown>;
  stale?: boolean;
}
