import type { z } from 'zod';
import type { gradeRequest } from '../server/api/routes/deckStudyShapes';
import type { DeckReviews } from '../server/domain/decks/deckReviews';
import type { ReviewRating } from '../server/domain/decks/deckScheduling';
import type { Requester, Success } from './requester';

/**
 * Studying a deck through the typed client: what is due (both sides
 * resolved), grading a card, the review log. Shapes come from the server's
 * own return types (`import type` only), so a change there breaks the build here.
 */

export type { ReviewRating };
export type DueList = Success & ReturnType<DeckReviews['due']>;
export type DueCard = DueList['cards'][number];
export type GradeResult = Success & Awaited<ReturnType<DeckReviews['grade']>>;
export type ReviewLog = Success & ReturnType<DeckReviews['logs']>;

/** POST /decks/{id}/reviews's body, from the route's schema. */
export type GradeRequest = z.input<typeof gradeRequest>;

const seg = encodeURIComponent;

export class ReviewApi {
  constructor(private readonly http: Requester) {}

  /** GET /decks/{id}/due: the cards due now in review order (at most `limit`), with the counts; with `until` (ISO date or date-time), those due by then in the order added. */
  due(deckId: string, limit?: number, until?: string) {
    return this.http.request<DueList>('GET', `/decks/${seg(deckId)}/due`, { query: { limit, until } });
  }

  /** POST /decks/{id}/reviews: one grade (FSRS reschedules the card; the log records it). */
  grade(deckId: string, req: GradeRequest) {
    return this.http.request<GradeResult>('POST', `/decks/${seg(deckId)}/reviews`, { body: { ...req, confirm: true } });
  }

  /** GET /decks/{id}/reviews: the review log, oldest first. */
  log(deckId: string, cardNoteId?: string) {
    return this.http.request<ReviewLog>('GET', `/decks/${seg(deckId)}/reviews`, { query: { cardNoteId } });
  }
}
