/**
 * The Statistics panel's protocol (host: views/deckStatsPanel.ts; page:
 * main.ts), carried by the webview channel (../channel). The host fetches
 * GET /decks/{id}/stats (for every deck and adds them up for "All decks") and
 * sends the model; the page draws it. Choosing 30 or 90 forecast days is the
 * page's own view: the model holds 90.
 */
import { anything } from '../channel/protocol';

export interface StateCounts {
  new: number;
  learning: number;
  review: number;
  relearning: number;
  suspended: number;
  buried: number;
  total: number;
}

export interface RetentionBucket {
  interval: string;
  reviews: number;
  passed: number;
  rate: number | null;
}

export interface StatsModel {
  /** The deck's title, or "All decks". */
  title: string;
  deckCount: number;
  now: string;
  counts: StateCounts;
  /** Cards due per study day from today (overdue counted today), 90 days. */
  forecast: { date: string; due: number }[];
  /** Days with reviews only, oldest first, over `historyDays`. */
  reviewsPerDay: { date: string; reviews: number; timeMs: number }[];
  historyDays: number;
  trueRetention: { reviews: number; passed: number; rate: number | null; byInterval: RetentionBucket[] };
  /** Cards (not new, not suspended) by their recall probability now; null where the bridge does not answer it. */
  retrievability: { cards: number; average: number | null; buckets: { range: string; cards: number }[] } | null;
}

export type DeckStatsViewState =
  | { status: 'loading'; title: string }
  | { status: 'error'; title: string; message: string }
  | { status: 'ready'; stats: StatsModel };

export interface DeckStatsProtocol {
  hostEvents: {
    state: DeckStatsViewState;
    /** What the panel shows (deckId null: all decks): the page keeps it, so a window reload can bring the panel back. */
    target: { deckId: string | null; title: string };
  };
  pageEvents: {
    /** Fetch the statistics again. */
    refresh: void;
  };
  hostRequests: object;
  pageRequests: object;
}

export const deckStatsGuards = {
  refresh: anything,
};
