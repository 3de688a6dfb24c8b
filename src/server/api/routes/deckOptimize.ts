import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { progressStream } from '../http/progressStream';
import { MIN_REVIEWS, optimizeDeck, optimizePreview } from '../../domain/decks/deckOptimize';
import type { FitStage } from '../../ground/fsrs/optimizer';
import { EXAMPLE_UUID, topicId } from './idParams';

/** Route: FSRS's weights fitted to the person's review log (Anki's Optimize). */

const score = z.object({ logLoss: z.number(), rmseBins: z.number() });

export const deckOptimizeRoutes = [
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/optimize',
    summary: `Fits FSRS's weights to the review log of the decks sharing this deck's preset (fsrs-rs, on a worker thread; seconds). The newest fifth of the grades is held out: scores (logLoss, rmseBins) of the defaults, the weights in use and the fitted ones on it. Stores the fitted weights in the preset (options.fsrsParameters, used by grading at once) when they score better and apply is not false; says applied. Under ${MIN_REVIEWS} reviews: 422 REVIEW_HISTORY_TOO_SHORT {reviews, needed}. stream:true answers server-sent events: progress {stage: prepare|fit|score, current, total, percent} (fsrs-rs reports its own steps only now and then), then result (this body) or error. 503 FSRS_OPTIMIZER_UNAVAILABLE where fsrs-rs does not load.`,
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: z.object({ id: topicId }),
    body: z.object({
      apply: z.boolean().default(true).describe('false: fit and score only; the preset keeps its weights'),
      stream: z.boolean().default(false).describe('true: answer text/event-stream with progress events'),
    }),
    response: z.object({
      deckId: z.string(),
      presetId: z.string(),
      presetName: z.string(),
      deckIds: z.array(z.string()).describe('Decks whose grades were fitted (those using the preset)'),
      reviews: z.number().int(),
      cards: z.number().int(),
      trainItems: z.number().int().describe('Grades the fit learned from (each with its card history)'),
      testItems: z.number().int().describe('Grades of the held-out tail the scores are measured on'),
      heldOutFrom: z.string(),
      parameters: z.array(z.number()),
      previousParameters: z.array(z.number()).nullable(),
      defaultParameters: z.array(z.number()),
      scores: z.object({ default: score, current: score.nullable(), fitted: score }),
      applied: z.boolean(),
      notApplied: z.string().optional(),
      fitMs: z.number().int(),
    }),
    example: { params: { id: EXAMPLE_UUID }, body: { apply: true } },
    preview: async ({ params, services }) => optimizePreview(services.store, services.decks, params.id),
    handler: async ({ params, body, services, signal }) => {
      const run = (onProgress?: (stage: FitStage, c: number, t: number) => void, s = signal) =>
        optimizeDeck(services.store, services.decks, params.id, { apply: body.apply, onProgress, signal: s });
      if (!body.stream) return run(undefined, AbortSignal.any([signal, services.closing]));
      optimizePreview(services.store, services.decks, params.id); // refusals answer as plain HTTP errors
      return progressStream((progress, s) => run(progress, s), services.closing);
    },
  }),
] satisfies RouteDecl[];
