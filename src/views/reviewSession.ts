import type { DueCard, DueList, GradeResult, ReviewRating } from '../client/reviewApi';
import type { ReviewMedia, ReviewViewState } from '../webviews/review/protocol';

/**
 * One review session of a deck, as Anki runs it: the cards due when it
 * started, one at a time; the question, then the answer, then a grade that
 * the bridge stores (POST /decks/{id}/reviews) before the next card shows.
 * Owns the session's state; the panel renders `view()`. No VS Code here.
 */

export interface ReviewBackend {
  due(deckId: string): Promise<DueList>;
  grade(deckId: string, req: { cardNoteId: string; rating: ReviewRating; durationMs: number }): Promise<GradeResult>;
  /** A card's pictures and source (reviewMedia.ts); a failure shows the card without them. */
  media?(card: DueCard): Promise<ReviewMedia>;
}

const RATINGS: readonly ReviewRating[] = ['again', 'hard', 'good', 'easy'];

export class ReviewSession {
  private cards: DueCard[] = [];
  private index = 0;
  private revealed = false;
  private busy = false;
  private error: string | undefined;
  private shownAt = 0;
  private loaded: DueList | undefined;
  private loadError: string | undefined;
  private after: DueList | undefined;
  /** Pictures and sources of the cards shown so far, by review card. */
  private readonly media = new Map<string, ReviewMedia>();
  /** Grades stored in this session, in order. */
  readonly graded: Array<{ cardNoteId: string; rating: ReviewRating; result: GradeResult }> = [];

  constructor(
    readonly deckId: string,
    private deckTitle: string,
    private readonly backend: ReviewBackend,
    private readonly now: () => number = Date.now,
  ) {}

  /** (Re)reads what is due and starts from its first card. */
  async load(): Promise<void> {
    this.loaded = undefined;
    this.loadError = undefined;
    this.after = undefined;
    try {
      const due = await this.backend.due(this.deckId);
      this.loaded = due;
      this.deckTitle = due.title;
      this.cards = due.cards;
      this.index = 0;
      this.revealed = false;
      this.shownAt = this.now();
      if (!this.cards.length) this.after = due;
      await this.loadMedia();
    } catch (e) {
      this.loadError = messageOf(e);
    }
  }

  /** Reads the current card's pictures and source once, before it shows. */
  private async loadMedia(): Promise<void> {
    const card = this.current;
    if (!card || !this.backend.media || this.media.has(card.cardNoteId)) return;
    this.media.set(card.cardNoteId, await this.backend.media(card).catch(() => ({})));
  }

  /** Where the current card's excerpt is, if it has one. */
  get source(): ReviewMedia['source'] {
    const card = this.current;
    return card ? this.media.get(card.cardNoteId)?.source : undefined;
  }

  get current(): DueCard | undefined {
    return this.loaded && !this.after ? this.cards[this.index] : undefined;
  }

  reveal(): void {
    if (this.current && !this.busy) this.revealed = true;
  }

  /** Stores the grade, then moves on; the last grade ends the session (the summary reads the deck again for its next due date). */
  async grade(rating: ReviewRating): Promise<void> {
    const card = this.current;
    if (!card || !this.revealed || this.busy || !RATINGS.includes(rating)) return;
    this.busy = true;
    this.error = undefined;
    try {
      const result = await this.backend.grade(this.deckId, {
        cardNoteId: card.cardNoteId,
        rating,
        durationMs: Math.max(0, Math.round(this.now() - this.shownAt)),
      });
      this.graded.push({ cardNoteId: card.cardNoteId, rating, result });
      this.index++;
      this.revealed = false;
      await this.loadMedia();
      this.shownAt = this.now();
      if (this.index >= this.cards.length)
        this.after = (await this.backend.due(this.deckId).catch(() => undefined)) ?? emptyAfter(this.loaded!);
    } catch (e) {
      this.error = messageOf(e);
    } finally {
      this.busy = false;
    }
  }

  view(): ReviewViewState {
    const deck = { deckId: this.deckId, title: this.deckTitle };
    if (this.loadError) return { status: 'error', deck, message: this.loadError };
    if (!this.loaded) return { status: 'loading', deck };
    if (this.after) {
      const counts = { again: 0, hard: 0, good: 0, easy: 0 };
      for (const g of this.graded) counts[g.rating]++;
      return {
        status: 'summary',
        deck,
        reviewed: this.graded.length,
        counts,
        nextDueAt: this.after.dueCount > 0 ? this.after.now : this.after.nextDueAt,
        dueNow: this.after.dueCount,
        dueToday: this.after.dueTodayCount,
      };
    }
    const card = this.cards[this.index];
    return {
      status: 'card',
      deck,
      position: this.index + 1,
      total: this.cards.length,
      remaining: remainingCounts(this.cards.slice(this.index)),
      card: {
        cardNoteId: card.cardNoteId,
        state: card.state,
        question: card.question,
        answer: card.answer,
        sourceAlive: card.sourceAlive,
        nextIntervals: card.nextIntervals,
        media: this.media.get(card.cardNoteId),
      },
      revealed: this.revealed,
      busy: this.busy,
      ...(this.error ? { error: this.error } : {}),
    };
  }
}

function remainingCounts(cards: DueCard[]) {
  return {
    new: cards.filter((c) => c.state === 'new').length,
    learning: cards.filter((c) => c.state === 'learning' || c.state === 'relearning').length,
    review: cards.filter((c) => c.state === 'review').length,
  };
}

const emptyAfter = (d: DueList): DueList => ({
  ...d,
  cards: [],
  count: 0,
  dueCount: 0,
  dueTodayCount: 0,
  nextDueAt: null,
});

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
