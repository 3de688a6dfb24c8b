import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { CardActions, parseDueDays, type CardAction } from '../../domain/decks/cardActions';
import type { BridgeServices } from '../../services';
import { EXAMPLE_UUID, topicId, uuidParam } from './idParams';

/** Routes: card management in a deck (suspend, unsuspend, bury, flag, forget, set due date), as Anki's browser. */

const actions = (s: BridgeServices) => new CardActions(s.store, s.decks);

const params = z.object({ id: topicId });
const cardNoteIds = z
  .array(uuidParam('cardNoteId'))
  .min(1, 'cardNoteIds must name at least one review card')
  .max(500, 'at most 500 cards per call; split the batch');

const response = z.object({
  persisted: z.literal(true),
  deckId: z.string(),
  action: z.string(),
  cards: z.array(
    z.object({
      cardNoteId: z.string(),
      queue: z.enum(['suspended', 'buried']).nullable().describe('null: studied as scheduled'),
      buriedUntil: z.string().nullable().describe('When a buried card comes back (the next study day)'),
      flag: z.number().int(),
      leech: z.boolean(),
      due: z.string(),
    }),
  ),
  count: z.number().int(),
});

const example = { params: { id: EXAMPLE_UUID }, body: { cardNoteIds: [EXAMPLE_UUID] } };

/** One route of the family: same gates, same answer; `toAction` reads the body's extra fields. */
function actionRoute<const N extends string, B extends z.ZodRawShape>(
  name: N,
  summary: string,
  extra: B,
  toAction: (body: z.output<z.ZodObject<B>>) => CardAction,
  more: { example?: Record<string, unknown>; destructive?: Parameters<typeof defineRoute>[0]['destructive'] } = {},
) {
  return defineRoute({
    method: 'POST',
    path: `/decks/{id}/cards/${name}`,
    summary,
    premium: true,
    confirm: 'body',
    params,
    body: z.object({ cardNoteIds, ...extra }),
    response,
    example: { ...example, body: { ...example.body, ...more.example } },
    ...(more.destructive ? { destructive: more.destructive } : {}),
    handler: async ({ params: p, body, services, actor }) =>
      actions(services).apply(p.id, (body as { cardNoteIds: string[] }).cardNoteIds, toAction(body as never), actor),
  });
}

export const deckCardActionRoutes = [
  actionRoute(
    'suspend',
    'Suspends review cards: they leave every due list (and the status bar) until unsuspended; their schedule is kept. Verify persisted:true.',
    {},
    () => ({ kind: 'suspend' }),
  ),
  actionRoute(
    'unsuspend',
    'Unsuspends review cards: they come back with the schedule they had. Verify persisted:true.',
    {},
    () => ({ kind: 'unsuspend' }),
  ),
  actionRoute(
    'bury',
    "Buries review cards until the deck's next study day (dayStartHour); suspended cards stay suspended. Verify persisted:true.",
    {},
    () => ({ kind: 'bury' }),
  ),
  actionRoute(
    'flag',
    'Flags review cards: flag 0 (none) or 1..7 (Anki: red, orange, green, blue, pink, turquoise, purple). Verify persisted:true.',
    { flag: z.number().int('flag must be 0..7').min(0, 'flag must be 0..7').max(7, 'flag must be 0..7') },
    (b) => ({ kind: 'flag', flag: b.flag }),
    { example: { flag: 1 } },
  ),
  actionRoute(
    'forget',
    'Forgets review cards: back to new (due now, reps and lapses 0, leech cleared). keepLog (default true) keeps their review log; false deletes it. Verify persisted:true.',
    { keepLog: z.boolean().default(true) },
    (b) => ({ kind: 'forget', keepLog: b.keepLog }),
    {
      destructive: {
        when: {
          says: 'with keepLog:false (the review log of the cards is deleted)',
          test: ({ body }) => (body as { keepLog?: boolean }).keepLog === false,
        },
      },
    },
  ),
  actionRoute(
    'set-due',
    'Sets the due date in Anki\'s syntax: days "0" (today), "1" (tomorrow), "3-7" (a day in that range), a trailing "!" also sets the interval to it. Due at the start of that study day. Verify persisted:true.',
    {
      days: z
        .string()
        .max(20)
        .refine((s) => parseDueDays(s) !== undefined, 'days must be Anki\'s syntax: "0", "3-7" or "10!" (from ≤ to)'),
    },
    (b) => ({ kind: 'set-due', days: b.days }),
    { example: { days: '3-7' } },
  ),
] satisfies RouteDecl[];
