import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { deckStats } from '../../domain/decks/deckStats';
import { EXAMPLE_UUID, topicId } from './idParams';

/** Routes: a deck's statistics (counts by state, forecast, reviews per day, true retention). */

const count = z.number().int();
const rate = z.number().nullable().describe('passed / reviews; null without reviews');

export const deckStatsRoutes = [
  defineRoute({
    method: 'GET',
    path: '/decks/{id}/stats',
    summary:
      "A deck's statistics by study day: counts (new, learning, review, relearning, suspended, buried), forecast (cards due per day for ?forecastDays=, default 30; overdue count today; new cards not included), reviewsPerDay with timeMs (?historyDays=, default 365), trueRetention (pass rate of review-state reviews, overall and byInterval), with ?retrievability=true retrievability (FSRS recall probability now of the cards not new and not suspended: cards, average, ten buckets; it reads each card's state, so it is asked for).",
    params: z.object({ id: topicId }),
    query: z.object({
      forecastDays: z.coerce
        .number()
        .int()
        .min(1, 'forecastDays must be 1..365')
        .max(365, 'forecastDays must be 1..365')
        .optional(),
      historyDays: z.coerce
        .number()
        .int()
        .min(1, 'historyDays must be 1..3650')
        .max(3650, 'historyDays must be 1..3650')
        .optional(),
      retrievability: z
        .enum(['0', '1', 'true', 'false'])
        .optional()
        .describe("true: also the cards' recall probability (reads every reviewed card's FSRS state)"),
    }),
    response: z.object({
      deckId: z.string(),
      now: z.string(),
      dayStartsAt: z.string(),
      counts: z.object({
        new: count,
        learning: count,
        review: count,
        relearning: count,
        suspended: count,
        buried: count,
        total: count,
      }),
      forecast: z.array(z.object({ date: z.string(), due: count })),
      reviewsPerDay: z.array(z.object({ date: z.string(), reviews: count, timeMs: count })),
      trueRetention: z.object({
        sinceDays: count,
        reviews: count,
        passed: count,
        rate,
        byInterval: z.array(z.object({ interval: z.string(), reviews: count, passed: count, rate })),
      }),
      retrievability: z
        .object({
          cards: count.describe('Cards with a memory state (not new, not suspended)'),
          average: z.number().nullable().describe('Mean probability of recall now; null without such cards'),
          buckets: z.array(z.object({ range: z.string(), cards: count })).describe('0-10% … 90-100%'),
        })
        .optional()
        .describe('With ?retrievability=true only'),
    }),
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, query, services }) =>
      deckStats(services.store, services.decks, params.id, {
        forecastDays: query.forecastDays ?? 30,
        historyDays: query.historyDays ?? 365,
        retrievability: query.retrievability === '1' || query.retrievability === 'true',
      }),
  }),
] satisfies RouteDecl[];
