import * as vscode from 'vscode';
import { BridgeClientError, type BridgeClient } from '../client/bridgeClient';
import type { PresetView } from '../client/deckOptionsApi';
import { openPagePanel, webviewPage } from '../editors/webviewPage';
import { HostChannel } from '../webviews/channel/hostChannel';
import { ChannelError } from '../webviews/channel/protocol';
import { DECK_OPTIONS_BODY } from '../webviews/deckOptions/markup';
import {
  deckOptionsGuards,
  OPTION_KEYS,
  type DeckOptionsProtocol,
  type DeckOptionsViewState,
  type DeckRef,
  type PresetModel,
  type SaveAnswer,
  type SaveRequest,
} from '../webviews/deckOptions/protocol';

export interface DeckOptionsDeps {
  extensionUri: vscode.Uri;
  getClient: () => BridgeClient | undefined;
  log: vscode.LogOutputChannel;
  /** After a save: the due counts follow the new limits. */
  onSaved: (deckId: string) => void;
}

/**
 * The Deck Options panels: one per deck. The host reads the deck's preset and
 * every preset through the client, and writes them with confirm; the page
 * only edits a form. A refusal of the bridge (4xx) is the save's answer, by
 * field, never an exception.
 */
export class DeckOptionsPanels implements vscode.Disposable {
  private readonly panels = new Map<string, DeckOptionsPanel>();

  constructor(private readonly deps: DeckOptionsDeps) {}

  panel(deckId: string): DeckOptionsPanel | undefined {
    return this.panels.get(deckId);
  }

  async open(deck: DeckRef): Promise<DeckOptionsPanel> {
    const existing = this.panels.get(deck.deckId);
    if (existing) {
      existing.webviewPanel.reveal();
      await existing.load();
      return existing;
    }
    const panel = new DeckOptionsPanel(deck, this.deps, () => this.panels.delete(deck.deckId));
    this.panels.set(deck.deckId, panel);
    await panel.load();
    return panel;
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.webviewPanel.dispose();
    this.panels.clear();
  }
}

export class DeckOptionsPanel {
  readonly webviewPanel: vscode.WebviewPanel;
  private readonly channel: HostChannel<DeckOptionsProtocol>;
  private current: DeckOptionsViewState;

  constructor(
    readonly deck: DeckRef,
    private readonly deps: DeckOptionsDeps,
    onDispose: () => void,
  ) {
    this.current = { status: 'loading', deck };
    this.webviewPanel = openPagePanel('studyBridge.deckOptions', `Deck Options: ${deck.title}`, deps.extensionUri);
    this.webviewPanel.webview.html = webviewPage(this.webviewPanel.webview, deps.extensionUri, {
      title: 'Deck Options',
      styles: [
        ['media', 'controls.css'],
        ['media', 'deckOptions.css'],
      ],
      script: ['dist', 'webview', 'deckOptions.js'],
      body: DECK_OPTIONS_BODY,
    });
    this.channel = new HostChannel<DeckOptionsProtocol>(this.webviewPanel.webview, {
      guards: deckOptionsGuards,
      log: (m) => deps.log.warn(m),
    });
    this.channel.onReady(() => this.push());
    this.channel.handle('save', (req) => this.save(req));
    this.channel.handle('addPreset', ({ cloneFrom }) => this.addPreset(cloneFrom));
    this.webviewPanel.onDidDispose(() => {
      this.channel.dispose();
      onDispose();
    });
  }

  /** What the page shows (tests read it). */
  get state(): DeckOptionsViewState {
    return this.current;
  }

  /** Reads the deck's preset and every preset again, and sends them to the page. */
  async load(): Promise<void> {
    const client = this.deps.getClient();
    if (!client) return this.set({ status: 'error', deck: this.deck, message: 'The bridge is not running.' });
    try {
      const [mine, { presets }] = await Promise.all([
        client.deckOptions.ofDeck(this.deck.deckId),
        client.deckOptions.presets(),
      ]);
      this.set({ status: 'ready', deck: this.deck, presetId: mine.presetId, presets: presets.map(presetModel) });
    } catch (e) {
      this.deps.log.warn(`deck options: ${errorText(e)}`);
      this.set({ status: 'error', deck: this.deck, message: `Could not read the deck's options: ${errorText(e)}` });
    }
  }

  /** Writes the chosen preset's name and options, then makes the deck use it. */
  private async save(req: SaveRequest): Promise<SaveAnswer> {
    const client = this.requireReady();
    const preset = this.presetOf(req.presetId);
    const name = req.name !== preset.name ? req.name : undefined;
    // Only the form's keys go on: the route refuses unknown ones, and these are the person's edits.
    const options = Object.fromEntries(OPTION_KEYS.filter((k) => k in req.options).map((k) => [k, req.options[k]]));
    try {
      const saved = await client.deckOptions.savePreset({ presetId: preset.presetId, name, options });
      const assigned =
        this.current.status === 'ready' && this.current.presetId !== preset.presetId
          ? await client.deckOptions.assign(this.deck.deckId, preset.presetId)
          : undefined;
      this.deps.log.info(`deck options: saved preset ${saved.presetId} for deck ${this.deck.deckId}`);
      await this.load();
      this.deps.onSaved(this.deck.deckId);
      const message = assigned
        ? `Saved: "${this.deck.title}" now uses "${saved.name}".`
        : `Saved "${saved.name}" (${saved.deckIds.length} ${saved.deckIds.length === 1 ? 'deck' : 'decks'}).`;
      return { ok: true, message, presetId: saved.presetId };
    } catch (e) {
      return refusal(e);
    }
  }

  /** A new preset named in an input box: Anki's defaults, or a copy of `cloneFrom` (fitted FSRS weights included). */
  private async addPreset(cloneFrom?: string): Promise<SaveAnswer | { ok: false; cancelled: true }> {
    const client = this.requireReady();
    const source = cloneFrom ? this.presetOf(cloneFrom) : undefined;
    const name = await vscode.window.showInputBox({
      title: source ? `Clone "${source.name}"` : 'Add preset',
      prompt: 'Name of the new options preset',
      value: source ? `${source.name} copy` : '',
      ignoreFocusOut: true,
    });
    if (name === undefined) return { ok: false, cancelled: true };
    try {
      const options = source
        ? (await client.deckOptions.presets()).presets.find((p) => p.presetId === source.presetId)?.options
        : undefined;
      if (source && !options) throw new ChannelError('PRESET_NOT_FOUND', `"${source.name}" no longer exists.`);
      const made = await client.deckOptions.savePreset({ name, options });
      await this.load();
      return { ok: true, message: `Added "${made.name}". Save to use it for this deck.`, presetId: made.presetId };
    } catch (e) {
      return refusal(e);
    }
  }

  private requireReady(): BridgeClient {
    const client = this.deps.getClient();
    if (!client || this.current.status !== 'ready') throw new ChannelError('NOT_READY', 'The bridge is not running.');
    return client;
  }

  private presetOf(presetId: string): PresetModel {
    const preset = this.current.status === 'ready' && this.current.presets.find((p) => p.presetId === presetId);
    if (!preset) throw new ChannelError('PRESET_NOT_FOUND', `No preset ${presetId}; reopen Deck Options.`);
    return preset;
  }

  private set(state: DeckOptionsViewState): void {
    this.current = state;
    this.push();
  }

  private push(): void {
    this.channel.notify('state', this.current);
  }
}

function presetModel(p: PresetView): PresetModel {
  const { fsrsParameters: _fitted, ...options } = p.options;
  return { presetId: p.presetId, name: p.name, builtIn: p.builtIn, deckCount: p.deckIds.length, options };
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** A 4xx of the bridge as the page's answer: its message, and each zod issue (or a taken name) by field. */
function refusal(e: unknown): SaveAnswer {
  if (!(e instanceof BridgeClientError) || e.status >= 500) throw e;
  const fields: Record<string, string> = {};
  const issues = (e.details?.issues ?? []) as Array<{ path?: string; message?: string }>;
  for (const issue of issues) {
    const key = (issue.path ?? '').split('.').find((part) => part === 'name' || OPTION_KEYS.includes(part as never));
    if (key && issue.message) fields[key] ??= issue.message;
  }
  if (e.code === 'PRESET_NAME_TAKEN') fields.name = e.message.replace(/^\d+ [A-Z_]+: /, '');
  return { ok: false, message: `Not saved: ${e.message.replace(/^\d+ [A-Z_]+: /, '')}`, fields };
}
