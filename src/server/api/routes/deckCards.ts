import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { DeckCards } from '../../domain/decks/deckCards';
import { DeckReviews } from '../../domain/decks/deckReviews';
import { dueHorizon } from '../../domain/decks/dueHorizon';
import { dueQueueForWire } from '../../domain/decks/dueWire';
import type { BridgeServices } from '../../services';
import { EXAMPLE_UUID, topicId, uuidParam } from './idParams';
import { noteId } from './noteParams';
import { deckOpenResponse, dueResponse, gradeRequest, gradeResponse, reviewLogResponse } from './deckStudyShapes';

/** Routes: review cards of decks, studying them (due, grades, the review log; FSRS) and deck open. */

const deckCards = (s: BridgeServices) => new DeckCards(s.store, s.decks);
const deckReviews = (s: BridgeServices) => new DeckReviews(s.store, s.decks);

const deckParams = z.object({ id: topicId });

const newCard = z
  .object({
    sourceNoteId: noteId,
    question: z.string().trim().min(1, 'question must not be empty').max(4000).optional(),
    questionContentId: z.string().trim().min(1).max(200).optional(),
    title: z.string().trim().min(1, 'title must not be empty').max(1000).optional(),
  })
  .refine((c) => c.question === undefined || c.questionContentId === undefined, {
    message:
      'give at most one of question (custom text) and questionContentId (a content part); neither = automatic (title as question)',
    path: ['questionContentId'],
  });

const addBody = z.object({
  cards: z
    .array(newCard)
    .min(1, 'cards must hold at least one card')
    .max(50, 'at most 50 cards per call; split the batch'),
});

const questionMode = z.enum(['automatic', 'custom_text', 'content_part']);
export const reviewCard = z.object({
  cardNoteId: z.string(),
  sourceNoteId: z.string(),
  resolvedNoteId: z.string(),
  sourceAlive: z.boolean(),
  title: z.string(),
  questionMode,
  question: z.string().optional(),
  questionContentId: z.string().optional(),
  due: z.string(),
  state: z.string(),
  reps: z.number().int(),
  lapses: z.number().int(),
  stability: z.number(),
  difficulty: z.number(),
  lastReviewAt: z.string().nullable(),
  nextIntervals: z.object({ again: z.string(), hard: z.string(), good: z.string(), easy: z.string() }),
  createdAt: z.string(),
  suspended: z.boolean(),
  buriedUntil: z.string().nullable().describe('A buried card: when it comes back (the next study day)'),
  flag: z.number().int().describe('0 none, 1..7 as Anki'),
  leech: z.boolean(),
});
export const deckCardsResponse = z.object({
  deckId: z.string(),
  cards: z.array(reviewCard),
  count: z.number().int(),
  dueCount: z.number().int(),
});
export const deckCardsAddResponse = z.object({
  persisted: z.literal(true),
  deckId: z.string(),
  cards: z.array(
    z.object({
      cardNoteId: z.string(),
      sourceNoteId: z.string(),
      resolvedNoteId: z.string(),
      updatedExisting: z.boolean(),
      questionMode,
      autoQuestionIndex: z.number().int().optional(),
      due: z.string(),
    }),
  ),
  count: z.number().int(),
});

export const deckCardRoutes = [
  defineRoute({
    method: 'GET',
    path: '/decks/{id}/cards',
    summary:
      "The deck's review cards by due date: sourceNoteId, resolvedNoteId, sourceAlive (false = source deleted or hidden, back empty), questionMode, FSRS due/state/reps/lapses, nextIntervals; dueCount; ?due=1 keeps cards due now.",
    params: deckParams,
    query: z.object({ due: z.enum(['0', '1', 'true', 'false']).optional() }),
    response: deckCardsResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, query, services }) =>
      deckCards(services).list(params.id, { dueOnly: query.due === '1' || query.due === 'true' }),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/cards',
    summary:
      'Adds up to 50 review cards: sourceNoteId plus at most one of question (custom text, {{cloze}} marks the hidden answer) or questionContentId (a part of the card); neither = automatic. Adding a source again updates and reschedules it (updatedExisting). True dry-run: wouldAdd.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: deckParams,
    body: addBody,
    response: deckCardsAddResponse,
    example: {
      params: { id: EXAMPLE_UUID },
      body: { cards: [{ sourceNoteId: EXAMPLE_UUID, question: 'The derivative of x² is {{cloze}}' }] },
    },
    preview: async ({ params, body, services }) => deckCards(services).previewAdd(params.id, body.cards),
    handler: async ({ params, body, services, actor }) => deckCards(services).add(params.id, body.cards, actor),
  }),
  defineRoute({
    method: 'GET',
    path: '/decks/{id}/due',
    summary:
      "What to study now under the deck's daily limits (learning, then reviews up to reviewsPerDay, then new up to newPerDay; heldBack says what each limit kept back; suspended and buried cards are left out): each card with question {kind title|cloze|text|content_part, text ({{cloze}} shown as […]), html}, answer {title, body, comments, html}, pictures (the media the html names), nextIntervals and nextDues for again|hard|good|easy; dueCount, newCount, dueTodayCount, reviewedToday, nextDueAt. ?until=<ISO date or date-time>: what is due by then, in the order added, without limits.",
    params: deckParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(1000).optional(),
      until: z
        .string()
        .max(40)
        .refine(
          (s) => dueHorizon(s) !== undefined,
          'until must be an ISO date (2026-12-01: by the end of that day) or a date-time with offset (2026-12-01T18:00:00Z)',
        )
        .optional(),
    }),
    response: dueResponse,
    example: { params: { id: EXAMPLE_UUID } },
    // Its cards as JSON made once per kept card (dueWire.ts): the same bytes as deckReviews().due's answer.
    handler: async ({ params, query, services }) =>
      dueQueueForWire(services.store, services.decks, params.id, {
        limit: query.limit ?? 200,
        until: query.until === undefined ? undefined : dueHorizon(query.until),
      }),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/reviews',
    summary:
      'Grades one review card: cardNoteId, rating again|hard|good|easy (or 1..4), reviewedAt (default now), durationMs. FSRS reschedules it and a review log entry records the grade; answers due, state, scheduledDays, reps, lapses, previousDue, reviewLogId.',
    premium: true,
    confirm: 'body',
    params: deckParams,
    body: gradeRequest,
    response: gradeResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { cardNoteId: EXAMPLE_UUID, rating: 'good', durationMs: 4200 } },
    handler: async ({ params, body, services, actor }) =>
      deckReviews(services).grade(
        params.id,
        {
          cardNoteId: body.cardNoteId,
          rating: body.rating,
          reviewedAt: body.reviewedAt ? new Date(body.reviewedAt) : undefined,
          durationMs: body.durationMs,
        },
        actor,
      ),
  }),
  defineRoute({
    method: 'GET',
    path: '/decks/{id}/reviews',
    summary:
      "The deck's review log, oldest first (?cardNoteId= one card, ?limit= default 1000, max 5000; truncated): rating, grade, stateBefore, dueBefore, stability, difficulty, elapsedDays, scheduledDays, learningSteps, reviewedAt, durationMs, dueAfter, actor, tokenId (the agent token; null: the person).",
    params: deckParams,
    query: z.object({
      cardNoteId: uuidParam('cardNoteId').optional(),
      limit: z.coerce.number().int().min(1).max(5000).optional(),
    }),
    response: reviewLogResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, query, services }) =>
      deckReviews(services).logs(params.id, { cardNoteId: query.cardNoteId, limit: query.limit ?? 1000 }),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/open',
    summary:
      'Opens the deck in the UI (asynchronous: accepted now; GET /context then shows studySet.isDeck:true). Empty body.',
    params: deckParams,
    response: deckOpenResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => {
      const deck = services.decks.get(params.id);
      await services.ui.open({ topicid: deck.deckId, title: deck.title, isDeck: true });
      return { accepted: true, deckId: deck.deckId };
    },
  }),
] satisfies RouteDecl[];
