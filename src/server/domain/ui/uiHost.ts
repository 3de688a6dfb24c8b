/**
 * The application's UI as the bridge sees it (docs/ARCHITECTURE.md, "Threads"). The extension
 * implements it with real views and editors; headless mode keeps it in memory.
 */
export interface UiContext {
  available: boolean;
  reason?: 'nothing_open' | 'app_not_responding';
  capturedAt: string;
  studySet?: { topicid: string; title: string; isDeck: boolean } | null;
  currentPage?: { bookmd5: string; page: number; mappingAvailable: boolean } | null;
  documents?: Array<{ bookmd5: string; focused: boolean; page: number | null }>;
  selectedNotes?: string[];
  focusedNote?: string | null;
}

export interface OpenRequest {
  topicid?: string;
  title?: string;
  isDeck?: boolean;
  bookmd5?: string;
  page?: number;
  noteid?: string;
}

/** How one key of a UI-state patch is taken (POST /ui-state/apply). */
export interface UiKeyOutcome {
  status: 'accepted' | 'conditional' | 'rejected';
  reason?: string;
  /** A conditional key is still kept in the bookmark (GET /ui-state) when true. */
  keep?: boolean;
}

/**
 * AnkiConnect's gui actions as the window takes them: show a note's card where
 * it is edited, start adding a card with a note's text, or tell which review
 * card the review panel shows.
 */
export type AnkiGuiRequest =
  | { kind: 'editNote'; topicid: string; title: string; noteid: string }
  | { kind: 'addCards'; draft: { topicid: string; setTitle: string; title: string; text: string } | null }
  | { kind: 'currentCard' };

export interface AnkiGuiAnswer {
  /** currentCard: the review card the review panel in front shows, null when none does. */
  shown?: { deckId: string; cardNoteId: string } | null;
}

export interface UiHost {
  context(): Promise<UiContext>;
  /** Asynchronous by contract: accepted now, visible through context() later. */
  open(req: OpenRequest): Promise<void>;
  /**
   * Optional UI-state hooks (headless has none: every valid key is kept in the
   * store). judgeUiKey may downgrade a key the bridge accepted; undefined = accepted.
   * Every method is asynchronous: in VS Code the bridge runs in a worker thread
   * and each call is a message to the window's main thread, which reads the
   * live settings (allowed theme changes, installed themes) when asked.
   */
  judgeUiKey?(key: string, value: unknown): Promise<UiKeyOutcome | undefined>;
  /** Applies the accepted keys to the real UI, after the answer was sent. */
  applyUiState?(patch: Record<string, unknown>): Promise<void>;
  /** Keys whose live value the UI knows; they override the stored bookmark in GET /ui-state. */
  liveUiState?(): Promise<Record<string, unknown>>;
  /** AnkiConnect's requestPermission from a browser origin not listed: asks the person (headless has none: denied). */
  askAnkiConnectPermission?(origin: string): Promise<boolean>;
  /** AnkiConnect's guiEditNote, guiAddCards and guiCurrentCard (headless has none: they answer "not available"). */
  ankiGui?(req: AnkiGuiRequest): Promise<AnkiGuiAnswer>;
}

/** Headless UI: remembers what was opened, nothing more. */
export class MemoryUiHost implements UiHost {
  private state: OpenRequest = {};

  async context(): Promise<UiContext> {
    const capturedAt = new Date().toISOString();
    const s = this.state;
    if (!s.topicid && !s.bookmd5) return { available: false, reason: 'nothing_open', capturedAt };
    return {
      available: true,
      capturedAt,
      studySet: s.topicid ? { topicid: s.topicid, title: s.title ?? '', isDeck: !!s.isDeck } : null,
      currentPage: s.bookmd5 && s.page ? { bookmd5: s.bookmd5, page: s.page, mappingAvailable: true } : null,
      documents: s.bookmd5 ? [{ bookmd5: s.bookmd5, focused: true, page: s.page ?? null }] : [],
      selectedNotes: [],
      focusedNote: s.noteid ?? null,
    };
  }

  async open(req: OpenRequest): Promise<void> {
    // Opening another set (or deck) replaces what was open; within the same set, a request refines it.
    const sameSet = !req.topicid || req.topicid === this.state.topicid;
    this.state = sameSet ? { ...this.state, ...req } : { ...req };
  }
}
