/**
 * The review panel's protocol (host: views/reviewPanel.ts; page: main.ts),
 * carried by the webview channel (../channel). The page renders and asks; the
 * session (views/reviewSession.ts) owns the state. Once the page is ready the
 * host sends the current state, and again after every change. A grade is a
 * request: its one reply (or error) shows where a refused grade happened.
 */
import type { DueCard, ReviewRating } from '../../client/reviewApi';
import { anything, fields, type RequestType } from '../channel/protocol';

export interface ReviewDeckRef {
  deckId: string;
  title: string;
}

/** What a card shows besides its text: pictures (as data: URLs; the page has no bridge access) and its source. */
export interface ReviewMedia {
  /** The question's picture: an image-occlusion part with its masks. */
  questionImage?: string;
  /** The answer's picture: the excerpt's page region, or the occlusion part without its masks. */
  answerImage?: string;
  /** The pictures the card HTML names (its `<img src>` media names), as data: URLs by name. */
  pictures?: Record<string, string>;
  /** Where the excerpt is in its book ("Open p. N" opens the reader there). */
  source?: { bookmd5: string; page: number; noteid: string; topicid: string };
}

export type ReviewCardModel = Pick<
  DueCard,
  'cardNoteId' | 'state' | 'question' | 'answer' | 'sourceAlive' | 'nextIntervals'
> & { media?: ReviewMedia };

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

export interface ReviewProtocol {
  hostEvents: {
    state: ReviewViewState;
  };
  pageEvents: {
    reveal: void;
    /** Start again with what is due now (from the summary). */
    restart: void;
    close: void;
    /** "Open p. N" (or the O key): the reader beside the panel, at the excerpt's rectangle. */
    openSource: void;
  };
  hostRequests: object;
  pageRequests: {
    /** Answers once the new state (the next card) has been sent; refused grades are errors. */
    grade: RequestType<{ rating: ReviewRating }, void>;
  };
}

export const RATINGS: readonly ReviewRating[] = ['again', 'hard', 'good', 'easy'];

export const reviewGuards = {
  reveal: anything,
  restart: anything,
  close: anything,
  openSource: anything,
  grade: fields({ rating: (r) => RATINGS.includes(r as ReviewRating) }),
};
