import * as vscode from 'vscode';
import {
  MemoryUiHost,
  type AnkiGuiAnswer,
  type AnkiGuiRequest,
  type OpenRequest,
  type UiContext,
  type UiHost,
  type UiKeyOutcome,
} from '../server/domain/ui/uiHost';
import { WorkbenchUiState } from './workbenchUiState';

/** What AnkiConnect's guiAddCards asks to add. */
export type AddCardDraft = Extract<AnkiGuiRequest, { kind: 'addCards' }>['draft'] & object;

/**
 * The bridge's view of this window (GET /context): the study set or document
 * the user selects in the sidebar is the one "open", and what an agent opens
 * (locate with navigate, later open/focus routes) is remembered and announced.
 */
export class WorkbenchUi implements UiHost, vscode.Disposable {
  private state = new MemoryUiHost();
  /** The PDF reader in front (its book and page), if any: what GET /context reports as the current page. */
  private reader: { bookmd5: string; page: number } | undefined;
  private readonly opened = new vscode.EventEmitter<OpenRequest>();
  /** An agent asked to show something. */
  readonly onDidOpen = this.opened.event;

  private readonly addCardAsked = new vscode.EventEmitter<AddCardDraft | null>();
  /** AnkiConnect's guiAddCards: start New Card with this draft (null: in the set chosen then). */
  readonly onDidAskAddCard = this.addCardAsked.event;
  /** The review card the review panel in front shows (set once the review panels exist). */
  reviewCard: () => { deckId: string; cardNoteId: string } | undefined = () => undefined;

  /** UI-state keys (POST /ui-state/apply) mapped onto the workbench. */
  private readonly uiState = new WorkbenchUiState();

  async judgeUiKey(key: string, value: unknown): Promise<UiKeyOutcome | undefined> {
    return this.uiState.judge(key, value);
  }

  applyUiState(patch: Record<string, unknown>): Promise<void> {
    return this.uiState.apply(patch);
  }

  async liveUiState(): Promise<Record<string, unknown>> {
    return this.uiState.live();
  }

  /** AnkiConnect's requestPermission from a browser origin not listed: the person decides, for this session. */
  async askAnkiConnectPermission(origin: string): Promise<boolean> {
    const allow = 'Allow';
    const answer = await vscode.window.showWarningMessage(
      `${origin} asks to use AnkiConnect: to read your review decks and add cards to them (it still needs a bridge token as its key). Allow it until the bridge restarts? To allow it for good, add it to the setting studyBridge.ankiConnect.allowedOrigins.`,
      { modal: true },
      allow,
    );
    return answer === allow;
  }

  /** AnkiConnect's gui actions: answered at once; what the person does next is theirs. */
  async ankiGui(req: AnkiGuiRequest): Promise<AnkiGuiAnswer> {
    if (req.kind === 'editNote') {
      await this.open({ topicid: req.topicid, title: req.title, isDeck: false, noteid: req.noteid });
      return {};
    }
    if (req.kind === 'addCards') {
      this.addCardAsked.fire(req.draft);
      return {};
    }
    return { shown: this.reviewCard() ?? null };
  }

  async context(): Promise<UiContext> {
    const ctx = await this.state.context();
    const r = this.reader;
    if (!r) return ctx;
    const { reason: _reason, ...rest } = ctx;
    return {
      ...rest,
      available: true,
      currentPage: { bookmd5: r.bookmd5, page: r.page, mappingAvailable: true },
      documents: [{ bookmd5: r.bookmd5, focused: true, page: r.page }],
    };
  }

  /** The reader in front shows this page of this book (undefined: no reader any more). Not an agent's request: nothing fires. */
  showReader(r: { bookmd5: string; page: number } | undefined): void {
    this.reader = r && { bookmd5: r.bookmd5, page: r.page };
  }

  async open(req: OpenRequest): Promise<void> {
    await this.state.open(req);
    this.opened.fire(req);
  }

  /** The user selected a study set (and maybe one of its documents) in the sidebar. */
  select(sel: { topicid: string; title: string; bookmd5?: string }): void {
    void this.state.open({
      topicid: sel.topicid,
      title: sel.title,
      isDeck: false,
      bookmd5: sel.bookmd5,
      page: sel.bookmd5 ? 1 : undefined,
    });
  }

  /** Nothing of `topicid` is open any more (before a restore replaces its cards). */
  async close(topicid: string): Promise<void> {
    if ((await this.state.context()).studySet?.topicid === topicid) this.state = new MemoryUiHost();
  }

  dispose(): void {
    this.opened.dispose();
    this.addCardAsked.dispose();
  }
}
