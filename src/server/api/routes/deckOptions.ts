import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { DeckPresets } from '../../domain/decks/deckPresets';
import { FSRS_PARAMETER_COUNTS, STEP_PATTERN, type Step } from '../../domain/decks/deckOptions';
import type { BridgeServices } from '../../services';
import { EXAMPLE_UUID, topicId } from './idParams';

/** Routes: deck options presets (Anki's options groups) and which one a deck uses. */

const presets = (s: BridgeServices) => new DeckPresets(s.store, s.decks);

const STEP_HINT = 'a step is a number and m, h or d ("1m", "10m", "1h", "2d")';
const steps = z
  .array(z.string().regex(STEP_PATTERN, STEP_HINT))
  .max(20, 'at most 20 steps')
  .transform((a) => a as Step[]);
const int = (min: number, max: number, what: string) =>
  z
    .number()
    .int(`${what} must be a whole number`)
    .min(min, `${what} must be ${min}..${max}`)
    .max(max, `${what} must be ${min}..${max}`);

const FSRS_HINT = `fsrsParameters is FSRS's weights: ${FSRS_PARAMETER_COUNTS.join(', ')} numbers (FSRS-4.5, -5, -6), or null for the defaults`;
export const fsrsParameters = z
  .array(z.number().finite().min(-100, FSRS_HINT).max(100, FSRS_HINT))
  .refine((w) => FSRS_PARAMETER_COUNTS.includes(w.length), FSRS_HINT)
  .nullable();

/** Every option, each optional: a write changes the keys it names. */
const optionsPatch = z
  .object({
    newPerDay: int(0, 9999, 'newPerDay'),
    reviewsPerDay: int(0, 99999, 'reviewsPerDay'),
    desiredRetention: z
      .number()
      .min(0.7, 'desiredRetention must be 0.70..0.99')
      .max(0.99, 'desiredRetention must be 0.70..0.99'),
    learningSteps: steps,
    relearningSteps: steps,
    maximumInterval: int(1, 36500, 'maximumInterval (days)'),
    buryNewSiblings: z.boolean(),
    buryReviewSiblings: z.boolean(),
    buryInterdayLearningSiblings: z.boolean(),
    leechThreshold: int(1, 99, 'leechThreshold'),
    leechAction: z.enum(['suspend', 'tag'], { error: 'leechAction must be suspend or tag' }),
    dayStartHour: int(0, 23, 'dayStartHour'),
    fsrsParameters,
  })
  .partial()
  .strict();

const options = z.object({
  newPerDay: z.number().int(),
  reviewsPerDay: z.number().int(),
  desiredRetention: z.number(),
  learningSteps: z.array(z.string()),
  relearningSteps: z.array(z.string()),
  maximumInterval: z.number().int(),
  buryNewSiblings: z.boolean(),
  buryReviewSiblings: z.boolean(),
  buryInterdayLearningSiblings: z.boolean(),
  leechThreshold: z.number().int(),
  leechAction: z.enum(['suspend', 'tag']),
  dayStartHour: z.number().int(),
  fsrsParameters: z
    .array(z.number())
    .nullable()
    .describe(
      "FSRS's weights fitted to the person (POST /decks/{id}/optimize, or an Anki package's); null: FSRS-6's defaults",
    ),
});
const preset = z.object({
  presetId: z.string(),
  name: z.string(),
  options,
  deckIds: z.array(z.string()).describe('Decks using this preset'),
  builtIn: z.boolean().describe('The Default preset, used by every deck not given another'),
  modifiedAt: z.string().nullable(),
});
const presetId = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\w-]+$/, 'presetId is an id from GET /deck-presets');
const deckOptions = z.object({
  deckId: z.string(),
  title: z.string(),
  presetId: z.string(),
  name: z.string(),
  options,
});

export const deckOptionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/deck-presets',
    summary:
      'Deck options presets (as Anki): presetId, name, options {newPerDay, reviewsPerDay, desiredRetention, learningSteps, relearningSteps, maximumInterval, bury*Siblings, leechThreshold, leechAction, dayStartHour, fsrsParameters}, deckIds using it. "default" is built in.',
    response: z.object({ presets: z.array(preset), count: z.number().int() }),
    handler: async ({ services }) => {
      const list = presets(services).list();
      return { presets: list, count: list.length };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/deck-presets',
    summary:
      'Creates a preset (no presetId) or changes one ("default" included): name, options (only the keys given change). Every deck using it studies with the new options at once; verify persisted:true.',
    premium: true,
    confirm: 'body',
    body: z.object({
      presetId: presetId.optional(),
      name: z.string().trim().min(1, 'name must not be empty').max(200).optional(),
      options: optionsPatch.default({}),
    }),
    response: preset.extend({ persisted: z.literal(true), created: z.boolean() }),
    example: { body: { name: 'Exam cram', options: { newPerDay: 50, desiredRetention: 0.85 } } },
    handler: async ({ body, services }) =>
      presets(services).save({
        presetId: body.presetId,
        name: body.name,
        options: body.options,
      }),
  }),
  defineRoute({
    method: 'GET',
    path: '/decks/{id}/options',
    summary: 'The options a deck studies with and the preset they come from (presetId, name, options).',
    params: z.object({ id: topicId }),
    response: deckOptions,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => presets(services).ofDeck(params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/decks/{id}/options',
    summary:
      'Makes the deck use a preset (presetId from GET /deck-presets; "default" = the built-in). Answers the options it now studies with; verify persisted:true.',
    premium: true,
    confirm: 'body',
    params: z.object({ id: topicId }),
    body: z.object({ presetId }),
    response: deckOptions.extend({ persisted: z.literal(true) }),
    example: { params: { id: EXAMPLE_UUID }, body: { presetId: 'default' } },
    handler: async ({ params, body, services }) => presets(services).assign(params.id, body.presetId),
  }),
] satisfies RouteDecl[];
