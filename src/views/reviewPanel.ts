import { openPagePanel, webviewPage } from '../editors/webviewPage';
import * as vscode from 'vscode';
import type { BridgeClient } from '../client/bridgeClient';
import { HostChannel } from '../webviews/channel/hostChannel';
import { ChannelError } from '../webviews/channel/protocol';
import { reviewGuards, type ReviewDeckRef, type ReviewMedia, type ReviewProtocol } from '../webviews/review/protocol';
import type { DueCard } from '../client/reviewApi';
import { reviewMedia } from './reviewMedia';
import { REVIEW_BODY } from '../webviews/review/markup';
import { ReviewSession } from './reviewSession';

/**
 * The review panels: one webview panel per deck, showing its session
 * (reviewSession.ts). Opening a deck that already has a panel reveals it and
 * starts over with what is due now.
 */
export class ReviewPanels implements vscode.Disposable {
  private readonly panels = new Map<string, Entry>();
  private readonly finished = new vscode.EventEmitter<ReviewSession>();
  /** Fires when a session reaches its summary (tests, the status bar). */
  readonly onDidFinish = this.finished.event;
  private readonly changed = new vscode.EventEmitter<ReviewSession>();
  /** Fires after every grade. */
  readonly onDidGrade = this.changed.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly getClient: () => BridgeClient | undefined,
    private readonly log: vscode.LogOutputChannel,
    private readonly openSource: (source: NonNullable<ReviewMedia['source']>) => Promise<unknown>,
  ) {}

  /** The session of a deck's open panel. */
  session(deckId: string): ReviewSession | undefined {
    return this.panels.get(deckId)?.session;
  }

  /** The card the review panel in front shows (the active one, else a visible one), if any. */
  shownCard(): { deckId: string; cardNoteId: string } | undefined {
    const entries = [...this.panels.values()];
    const front = entries.find((e) => e.panel.active) ?? entries.find((e) => e.panel.visible);
    const card = front?.session.current;
    return front && card ? { deckId: front.session.deckId, cardNoteId: card.cardNoteId } : undefined;
  }

  async open(deck: ReviewDeckRef): Promise<ReviewSession> {
    const client = this.getClient();
    if (!client) throw new Error('The bridge is not running.');
    const backend = {
      due: (deckId: string) => client.reviews.due(deckId),
      grade: (deckId: string, req: Parameters<BridgeClient['reviews']['grade']>[1]) =>
        client.reviews.grade(deckId, req),
      media: (card: DueCard) => reviewMedia(client, card),
    };
    const session = new ReviewSession(deck.deckId, deck.title, backend);
    const existing = this.panels.get(deck.deckId);
    if (existing) {
      existing.session = session;
      existing.panel.reveal();
      await this.start(existing, session);
      return session;
    }
    const panel = openPagePanel('studyBridge.review', `Review: ${deck.title}`, this.extensionUri);
    panel.webview.html = reviewPanelHtml(panel.webview, this.extensionUri);
    const channel = new HostChannel<ReviewProtocol>(panel.webview, {
      guards: reviewGuards,
      log: (m) => this.log.warn(m),
    });
    const entry: Entry = { panel, session, channel };
    this.panels.set(deck.deckId, entry);
    const push = () => channel.notify('state', entry.session.view());
    panel.onDidDispose(() => {
      channel.dispose();
      this.panels.delete(deck.deckId);
    });
    channel.onReady(push);
    channel.on('reveal', () => {
      entry.session.reveal();
      push();
    });
    channel.handle('grade', async ({ rating }) => {
      const s = entry.session;
      const before = s.graded.length;
      await s.grade(rating);
      const view = s.view();
      // The new state first: when the reply lands, the next card is already there.
      push();
      if (s.graded.length === before)
        throw new ChannelError('NOT_GRADED', view.status === 'card' ? (view.error ?? 'not graded') : 'not graded');
      this.log.info(`review: ${rating} on ${s.graded[s.graded.length - 1].cardNoteId} (deck ${s.deckId})`);
      this.changed.fire(s);
      if (view.status === 'summary') this.finished.fire(s);
    });
    channel.on(
      'restart',
      () => void this.start(entry, (entry.session = new ReviewSession(deck.deckId, deck.title, backend))),
    );
    channel.on('close', () => void panel.dispose());
    channel.on('openSource', () => {
      const source = entry.session.source;
      if (source)
        void this.openSource(source).catch((e: unknown) =>
          this.log.warn(`review: open source: ${e instanceof Error ? e.message : String(e)}`),
        );
    });
    await this.start(entry, session);
    return session;
  }

  private async start(entry: Entry, session: ReviewSession): Promise<void> {
    entry.channel.notify('state', session.view());
    await session.load();
    entry.channel.notify('state', session.view());
  }

  dispose(): void {
    for (const { panel } of this.panels.values()) panel.dispose();
    this.panels.clear();
    this.finished.dispose();
    this.changed.dispose();
  }
}

interface Entry {
  panel: vscode.WebviewPanel;
  session: ReviewSession;
  channel: HostChannel<ReviewProtocol>;
}

/** The review page (shell and CSP: webviewPage.ts). */
function reviewPanelHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webviewPage(webview, extensionUri, {
    title: 'Review',
    styles: [
      ['media', 'controls.css'],
      ['media', 'reviewPanel.css'],
    ],
    script: ['dist', 'webview', 'review.js'],
    // Pictures come from the host as data: URLs (the page never talks to the bridge).
    extraCsp: { 'img-src': ['data:'] },
    body: REVIEW_BODY,
  });
}
