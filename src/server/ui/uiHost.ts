/**
 * The application's UI as the bridge sees it (DESIGN.md §1). The extension
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

export interface UiHost {
  context(): Promise<UiContext>;
  /** Asynchronous by contract: accepted now, visible through context() later. */
  open(req: OpenRequest): Promise<void>;
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
