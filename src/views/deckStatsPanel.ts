import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { fetchDeckStats } from '../client/deckStatsApi';
import { openPagePanel, webviewPage } from '../editors/webviewPage';
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

/**
 * The Statistics panels: one per deck and one for all decks. The host fetches
 * GET /decks/{id}/stats through the client (every deck's, added up, for all
 * decks), keeps the state, and sends it to the page, which draws it.
 */
export class DeckStatsPanels implements vscode.Disposable {
  private readonly panels = new Map<string, Entry>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly getClient: () => BridgeClient | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The state of a target's open panel (tests). */
  state(deckId?: string): DeckStatsViewState | undefined {
    return this.panels.get(deckId ?? ALL)?.state;
  }

  /** Opens (or reveals and reloads) the target's panel; answers once its statistics are loaded. */
  async open(target: StatsTarget): Promise<DeckStatsViewState> {
    const key = target.deckId ?? ALL;
    const existing = this.panels.get(key);
    if (existing) {
      existing.panel.reveal();
      return this.load(existing);
    }
    const panel = openPagePanel('studyBridge.deckStats', `Statistics: ${target.title}`, this.extensionUri);
    panel.webview.html = webviewPage(panel.webview, this.extensionUri, {
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
      log: (m) => this.log.warn(m),
    });
    const entry: Entry = { target, panel, channel, state: { status: 'loading', title: target.title } };
    this.panels.set(key, entry);
    panel.onDidDispose(() => {
      channel.dispose();
      this.panels.delete(key);
    });
    channel.onReady(() => channel.notify('state', entry.state));
    channel.on('refresh', () => void this.load(entry));
    return this.load(entry);
  }

  private async load(entry: Entry): Promise<DeckStatsViewState> {
    const show = (state: DeckStatsViewState) => {
      entry.state = state;
      entry.channel.notify('state', state);
      return state;
    };
    show({ status: 'loading', title: entry.target.title });
    try {
      const client = this.getClient();
      if (!client) throw new Error('The bridge is not running.');
      const query = { forecastDays: FORECAST_DAYS, historyDays: HISTORY_DAYS, retrievability: true };
      const ids = entry.target.deckId ? [entry.target.deckId] : (await client.listDecks()).map((d) => d.deckId);
      const answers = [];
      // One deck at a time: the bridge's thread serves the window too.
      for (const id of ids) answers.push(await fetchDeckStats(client, id, query));
      return show({ status: 'ready', stats: statsModel(entry.target.title, answers, HISTORY_DAYS) });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.log.warn(`statistics: ${message}`);
      return show({ status: 'error', title: entry.target.title, message });
    }
  }

  dispose(): void {
    for (const { panel } of this.panels.values()) panel.dispose();
    this.panels.clear();
  }
}

interface Entry {
  target: StatsTarget;
  panel: vscode.WebviewPanel;
  channel: HostChannel<DeckStatsProtocol>;
  state: DeckStatsViewState;
}
