import { escapeHtml, pageRoots, webviewPage } from '../editors/webviewPage';
import * as vscode from 'vscode';
import type { BridgeClient, StudySet } from '../client/bridgeClient';
import { BridgeClientError } from '../client/bridgeClient';
import { readMindMap } from './mindMapRead';
import { HostChannel } from '../webviews/channel/hostChannel';
import {
  MIND_MAP_VIEW_TYPE,
  mindMapGuards,
  type MindMapData,
  type MindMapProtocol,
  type MindMapTiming,
} from '../webviews/mindMap/protocol';
import { performance } from 'node:perf_hooks';
import { mindMapBody } from '../webviews/mindMap/markup';

/** Several writes in a burst (an agent's submit) redraw once (a burst longer than a read: once more after the read). */
const REDRAW_DEBOUNCE_MS = 40;
/** A page in sight that has not said ready this long after its HTML is loaded again (twice at most). */
const PAGE_START_TIMEOUT_MS = 10_000;

export interface MindMapDeps {
  extensionUri: vscode.Uri;
  getClient(): BridgeClient | undefined;
  log: vscode.LogOutputChannel;
  /** Fires when anyone wrote to the library (the change feed). */
  onLibraryChange: vscode.Event<unknown>;
  /** Fires when the bridge starts, stops or is taken over (a map restored at a window reload comes before it listens). */
  onBridgeChange: vscode.Event<{ mode: string }>;
  /** Selects the card in the Study Sets view. */
  revealCard(studySet: StudySet, noteid: string): Promise<void>;
}

/** What the webview last reported drawing. */
export interface MindMapRender {
  seq: number;
  nodeCount: number;
  cspViolations: string[];
  /** The page's clock for this map: arrived, laid out, drawn (the suite prints a redraw's). */
  timing?: MindMapTiming;
}

/** Where the first draw's time went, in ms since the panel was made (the suite prints it). */
export interface MindMapFirstDraw {
  /** The page said ready (its script loaded and ran). */
  pageReady?: number;
  /** The set's tree, palette and hashtags read from the bridge (started with the panel, beside the page's load). */
  mapRead?: number;
  /** The page reported the map drawn and painted. */
  rendered?: number;
  /** The page's own clock (ms since its navigation began): script start, map arrived, drawn. */
  page?: MindMapTiming;
}

/** A study set's mind map: reads the set's tree, sends it to the webview, and acts on clicks. */
export class MindMapPanel implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly disposed = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposed.event;
  private readonly rendered = new vscode.EventEmitter<MindMapRender>();
  /** The webview drew a map (after its transitions). */
  readonly onDidRender = this.rendered.event;
  private readonly channel: HostChannel<MindMapProtocol>;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private pageStartTimer: NodeJS.Timeout | undefined;
  private loading: Promise<void> | undefined;
  private again = false;
  /** The last map sent, and what the webview last drew. */
  lastMap: MindMapData | undefined;
  lastRender: MindMapRender | undefined;
  /** When the last map's read began and when it was sent (performance.now(): the suite times a redraw). */
  lastSend: { seq: number; readAt: number; sentAt: number } | undefined;
  readonly firstDraw: MindMapFirstDraw = {};
  private readonly createdAt = performance.now();
  /** The map is being read before the page is ready: its first `ready` needs no second read. */
  private primed = false;

  constructor(
    readonly studySet: StudySet,
    private readonly deps: MindMapDeps,
    /** A panel VS Code restored after a window reload (its page's state holds the folds and zoom). */
    restored?: vscode.WebviewPanel,
  ) {
    const roots = pageRoots(deps.extensionUri);
    this.panel =
      restored ??
      vscode.window.createWebviewPanel(MIND_MAP_VIEW_TYPE, `Mind Map: ${studySet.title}`, vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: roots,
        // Folds and zoom live in the webview's state; a hidden map is rebuilt from the bridge when shown.
        retainContextWhenHidden: false,
      });
    if (restored) this.panel.webview.options = { enableScripts: true, localResourceRoots: roots };
    this.panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'study-bridge.svg');
    this.panel.webview.html = mindMapHtml(this.panel.webview, deps.extensionUri, studySet.title);
    this.channel = new HostChannel<MindMapProtocol>(this.panel.webview, {
      guards: mindMapGuards,
      log: (m) => deps.log.warn(m),
    });
    this.listen();
    this.watchPageStart();
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.channel,
      this.rendered,
    );
    // Read the set while the page loads: the map waits in the channel's queue until the page is ready.
    this.primed = true;
    void this.redraw(true);
  }

  /**
   * Loads the page again when, in sight, it has not said ready PAGE_START_TIMEOUT_MS after its HTML: once in CI
   * a map VS Code 1.100 restored after a window reload stayed at "Loading…" with no read of its set (its
   * script never ran, so no ready came). Twice at most; a hidden page loads only when shown and is not counted.
   */
  private watchPageStart(attempt = 1): void {
    this.pageStartTimer = setTimeout(() => {
      if (this.channel.isReady || attempt > 2) return;
      if (!this.panel.visible) return this.watchPageStart(attempt);
      this.deps.log.warn(
        `mind map "${this.studySet.title}": the page did not start in ${PAGE_START_TIMEOUT_MS / 1000} s; loading it again`,
      );
      this.panel.webview.html = mindMapHtml(this.panel.webview, this.deps.extensionUri, this.studySet.title);
      this.watchPageStart(attempt + 1);
    }, PAGE_START_TIMEOUT_MS);
  }

  /** Reads the set again soon (bursts of writes coalesce). */
  scheduleRedraw(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.redraw();
    }, REDRAW_DEBOUNCE_MS);
  }

  /** Reads the set and sends the map; a request during a read reads once more after it. */
  async redraw(beforeReady = false): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    if (!this.channel.isReady && !beforeReady) return;
    this.loading = (async () => {
      do {
        this.again = false;
        await this.loadAndSend();
      } while (this.again);
    })().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async loadAndSend(): Promise<void> {
    const client = this.deps.getClient();
    if (!client) {
      // The page's ready must read again (a map restored at a window reload is made before the bridge listens).
      this.primed = false;
      return this.channel.notify('problem', {
        message: 'The bridge is not running yet: the map appears once it listens (or restart it from the status bar).',
      });
    }
    try {
      const readAt = performance.now();
      const data = await readMindMap(client, this.studySet, ++this.seq);
      this.lastMap = data;
      this.firstDraw.mapRead ??= this.sinceCreated();
      this.panel.title = `Mind Map: ${data.title}`;
      this.channel.notify('map', data);
      this.lastSend = { seq: data.seq, readAt, sentAt: performance.now() };
    } catch (err) {
      const message =
        err instanceof BridgeClientError && err.code === 'TOPIC_NOT_FOUND'
          ? `“${this.studySet.title}” no longer exists.`
          : `Could not read the map: ${errorText(err)}`;
      this.deps.log.warn(`mind map ${this.studySet.topicid}: ${errorText(err)}`);
      this.channel.notify('problem', { message });
    }
  }

  private listen(): void {
    const c = this.channel;
    // A (re)loaded page: send the map again (its folds and zoom come from its own state).
    c.onReady(() => {
      this.firstDraw.pageReady ??= this.sinceCreated();
      if (this.primed) this.primed = false;
      else void this.redraw();
    });
    c.on('refresh', () => void this.redraw());
    c.on('rendered', (m) => {
      if (m.cspViolations.length > (this.lastRender?.cspViolations.length ?? 0))
        this.deps.log.warn(`mind map: CSP violations ${m.cspViolations.join('; ')}`);
      this.lastRender = { seq: m.seq, nodeCount: m.nodeCount, cspViolations: m.cspViolations, timing: m.timing };
      if (this.firstDraw.rendered === undefined)
        Object.assign(this.firstDraw, { rendered: this.sinceCreated(), page: m.timing });
      this.rendered.fire(this.lastRender);
    });
    c.handle('openCard', ({ noteid }) => this.openCard(noteid));
  }

  private sinceCreated(): number {
    return Math.round(performance.now() - this.createdAt);
  }

  /**
   * A click on a node: the card is selected in the Study Sets view, then
   * focused through the bridge (POST /notes/{id}/focus), as an agent would:
   * GET /context reports it, and the window's UiHost opens an excerpt card's
   * source page in the PDF reader (the reader follows every focus).
   */
  async openCard(noteid: string): Promise<void> {
    const client = this.deps.getClient();
    if (!client) throw new Error('The bridge is not running.');
    await this.deps.revealCard(this.studySet, noteid);
    await client.cards.focus(noteid, this.studySet.topicid);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.pageStartTimer);
    this.disposed.fire();
    this.disposed.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

/** The map's page (shell and CSP: webviewPage.ts). */
function mindMapHtml(webview: vscode.Webview, extensionUri: vscode.Uri, title: string): string {
  const text = escapeHtml(title);
  return webviewPage(webview, extensionUri, {
    title: `Mind Map: ${title}`,
    styles: [['media', 'mindMap.css']],
    script: ['dist', 'webview', 'mindMap.js'],
    body: mindMapBody(text),
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
