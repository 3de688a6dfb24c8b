/**
 * Messages between the review panel (extension host) and its webview. The
 * webview renders and asks; the session (reviewSession.ts) owns the state. It
 * says `ready` first; the host then sends the current state, and again after
 * every change. A grade carries a requestId and gets exactly one `reply`, so
 * a refused grade shows where it happened. media/reviewPanel.js speaks this
 * protocol; keep the two in step.
 */
import type { DueCard, ReviewRating } from '../client/reviewApi';

export interface ReviewDeckRef {
  deckId: string;
  title: string;
}

export type ReviewCardModel = Pick<DueCard, 'cardNoteId' | 'state' | 'question' | 'answer' | 'sourceAlive' | 'nextIntervals'>;

export type ReviewViewState =
  | { status: 'loading'; deck: ReviewDeckRef }
  | { status: 'error'; deck: ReviewDeckRef; message: string }
  | {
      status: 'card';
      deck: ReviewDeckRef;
      /** 1-based place of this card in the session, of `total`. */
      position: number;
      total: number;
      /** Cards left, this one included, by kind (Anki's three counters). */
      remaining: { new: number; learning: number; review: number };
      card: ReviewCardModel;
      revealed: boolean;
      busy: boolean;
      error?: string;
    }
  | {
      status: 'summary';
      deck: ReviewDeckRef;
      reviewed: number;
      counts: Record<ReviewRating, number>;
      /** When the deck's next card is due (now, if some are due again already); null: no cards. */
      nextDueAt: string | null;
      dueNow: number;
      dueToday: number;
    };

export type HostToWebview =
  | { type: 'state'; state: ReviewViewState }
  | { type: 'reply'; requestId: number; ok: true }
  | { type: 'reply'; requestId: number; ok: false; error: { message: string } };

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'reveal' }
  | { type: 'grade'; rating: ReviewRating; requestId: number }
  /** Start again with what is due now (from the summary). */
  | { type: 'restart' }
  | { type: 'close' };

const RATINGS = ['again', 'hard', 'good', 'easy'];

export const isReviewMessage = (m: unknown): m is WebviewToHost => {
  const x = m as { type?: unknown; rating?: unknown; requestId?: unknown } | null;
  const t = x?.type;
  if (t === 'ready' || t === 'reveal' || t === 'restart' || t === 'close') return true;
  if (t === 'grade') return RATINGS.includes(String(x!.rating)) && Number.isInteger(x!.requestId);
  return false;
};
