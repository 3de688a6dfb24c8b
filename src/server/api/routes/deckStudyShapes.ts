import { z } from 'zod';
import { REVIEW_RATINGS, type ReviewRating } from '../../domain/decks/deckScheduling';
import { uuidParam } from './idParams';
import { facePictures, reviewAnswer, reviewQuestion } from './reviewFaceShapes';

/** Shapes of studying a deck (the due queue, grades, the review log, open): what deckCards.ts's routes answer and take. */

/** A grade by name or by ts-fsrs number (1 again … 4 easy). */
const RATING_HINT = 'rating must be again, hard, good or easy (or 1..4)';
const rating = z
  .union(
    [
      z.enum(REVIEW_RATINGS as [ReviewRating, ...ReviewRating[]]),
      z.number().int(RATING_HINT).min(1, RATING_HINT).max(4, RATING_HINT),
    ],
    { error: RATING_HINT },
  )
  .transform((r): ReviewRating => (typeof r === 'number' ? REVIEW_RATINGS[r - 1] : r));

export const deckOpenResponse = z.object({ accepted: z.boolean(), deckId: z.string() });

const byRating = z.object({ again: z.string(), hard: z.string(), good: z.string(), easy: z.string() });
const reviewState = z.enum(['new', 'learning', 'review', 'relearning']);
export const dueCard = z.object({
  cardNoteId: z.string(),
  sourceNoteId: z.string(),
  resolvedNoteId: z.string(),
  sourceAlive: z.boolean(),
  question: reviewQuestion,
  answer: reviewAnswer,
  pictures: facePictures,
  due: z.string(),
  state: reviewState,
  reps: z.number().int(),
  lapses: z.number().int(),
  stability: z.number(),
  difficulty: z.number(),
  lastReviewAt: z.string().nullable(),
  flag: z.number().int().describe('0 none, 1..7 as Anki (red, orange, green, blue, pink, turquoise, purple)'),
  leech: z.boolean(),
  nextIntervals: byRating,
  nextDues: byRating,
});
export const dueResponse = z.object({
  deckId: z.string(),
  title: z.string(),
  now: z.string(),
  /** Only with ?until=: the last instant it covers (a date: the end of that local day). */
  until: z.string().optional(),
  cards: z.array(dueCard),
  count: z.number().int(),
  dueCount: z.number().int(),
  newCount: z.number().int(),
  learningCount: z.number().int(),
  reviewCount: z.number().int(),
  heldBack: z
    .object({ newPerDay: z.number().int(), reviewsPerDay: z.number().int() })
    .describe("Due cards today's limits keep for a later day, by the limit that held them"),
  limits: z.object({
    presetId: z.string(),
    newPerDay: z.number().int(),
    reviewsPerDay: z.number().int(),
    newStudiedToday: z.number().int(),
    reviewsStudiedToday: z.number().int(),
  }),
  dueTodayCount: z.number().int(),
  reviewedToday: z.number().int(),
  dayStartsAt: z.string(),
  nextDueAt: z.string().nullable(),
});
export const gradeResponse = z.object({
  persisted: z.literal(true),
  deckId: z.string(),
  cardNoteId: z.string(),
  rating: z.enum(['again', 'hard', 'good', 'easy']),
  grade: z.number().int(),
  reviewedAt: z.string(),
  due: z.string(),
  state: reviewState,
  scheduledDays: z.number(),
  reps: z.number().int(),
  lapses: z.number().int(),
  previousDue: z.string(),
  reviewLogId: z.string(),
  leech: z.boolean().describe('This lapse made the card a leech'),
  suspended: z.boolean().describe("The leech was suspended (the deck's leechAction)"),
});
export const reviewLogResponse = z.object({
  deckId: z.string(),
  reviews: z.array(
    z.object({
      reviewLogId: z.string(),
      cardNoteId: z.string(),
      rating: z.string(),
      grade: z.number().int(),
      stateBefore: z.string(),
      dueBefore: z.string(),
      stability: z.number(),
      difficulty: z.number(),
      elapsedDays: z.number(),
      lastElapsedDays: z.number(),
      scheduledDays: z.number(),
      learningSteps: z.number(),
      reviewedAt: z.string(),
      durationMs: z.number().nullable(),
      dueAfter: z.string(),
      actor: z.string(),
      tokenId: z.string().nullable().describe('The agent token that graded (GET /tokens names it); null: the person'),
    }),
  ),
  count: z.number().int(),
  truncated: z.boolean(),
});

/** POST /decks/{id}/reviews's body (the client's GradeRequest is its z.input). */
export const gradeRequest = z.object({
  cardNoteId: uuidParam('cardNoteId'),
  rating: rating,
  reviewedAt: z.iso.datetime({ offset: true }).optional(),
  durationMs: z.number().int().min(0).max(86_400_000).optional(),
});
