import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RouteServices } from '../http/routeTable';
import { askRoute, dueCardResult, routeRefusal, type ReviewAppState } from './reviewCard';
import { MCP_APP_MIME, REVIEW_APP_UI_META, REVIEW_APP_URI, reviewPageHtml } from './reviewPage';
import type { BridgeTool } from './mcpTools';

/**
 * Reviewing a deck over MCP: study_review_next shows the first card due,
 * study_review_grade stores the person's grade (POST /decks/{id}/reviews,
 * with the caller's token: the review log names the agent) and shows the
 * next. Both link the review MCP App (the `io.modelcontextprotocol/ui`
 * extension): a host with MCP Apps shows the card there and the page grades
 * through the host; any other host gets the same card as text and a picture.
 */

const RATINGS = ['again', 'hard', 'good', 'easy'] as const;

/** `_meta` of both tools: the app they render in (the flat key too, for hosts of the extension's first drafts). */
const appMeta = { ui: { resourceUri: REVIEW_APP_URI }, 'ui/resourceUri': REVIEW_APP_URI };

const nextArgs = { deckId: z.string().min(1).describe('The deck to review (deckId from GET /decks)') };
const gradeArgs = {
  deckId: z.string().min(1).describe('The deck of the card'),
  cardNoteId: z.string().min(1).describe("The card's cardNoteId, as study_review_next gave it"),
  rating: z.enum(RATINGS).describe("The person's grade: again | hard | good | easy (never choose for them)"),
  durationMs: z.number().int().min(0).max(86_400_000).optional().describe('How long the person took to answer'),
};

export interface GradeArgs {
  deckId: string;
  cardNoteId: string;
  rating: (typeof RATINGS)[number];
  durationMs?: number;
}

export interface ReviewTools {
  next: BridgeTool<{ deckId: string }>;
  /** Offered to write tokens only: grading writes the deck. */
  grade?: BridgeTool<GradeArgs>;
}

export function reviewTools(services: RouteServices, token: string): ReviewTools {
  const readOnly = services.tokens.identify(token)?.scope === 'read';
  const next: BridgeTool<{ deckId: string }> = {
    name: 'study_review_next',
    description:
      "Shows the first card due in a review deck: question, answer (show it after the person answers), the answer's page picture and the next interval of each grade. In hosts with MCP Apps it is an interactive card (Show answer, Again/Hard/Good/Easy); elsewhere text and an image. Reads only.",
    shape: nextArgs,
    annotations: { title: 'Review: next card', readOnlyHint: true, openWorldHint: false },
    meta: appMeta,
    run: async ({ deckId }) => dueCardResult(services, token, deckId),
  };
  const grade: BridgeTool<GradeArgs> = {
    name: 'study_review_grade',
    description:
      "Stores the person's grade of a card study_review_next showed (FSRS reschedules it; the review log records it as yours), then shows the next card due. Ask the person for the grade.",
    shape: gradeArgs,
    // A grade is recorded, not undone by another; sending it twice would record two reviews.
    annotations: {
      title: 'Review: grade a card',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    meta: appMeta,
    run: (args) => gradeCard(services, token, args),
  };
  return readOnly ? { next } : { next, grade };
}

async function gradeCard(services: RouteServices, token: string, args: GradeArgs): Promise<CallToolResult> {
  const { deckId, cardNoteId, rating, durationMs } = args;
  const answer = await askRoute(services, token, 'POST', `/decks/${encodeURIComponent(deckId)}/reviews`, {
    body: { cardNoteId, rating, ...(durationMs !== undefined ? { durationMs } : {}), confirm: true },
  });
  // Anything but the stored grade (a refusal, a 202 waiting for the person) is answered as the route gave it.
  if (answer.status !== 200) {
    const result = routeRefusal(answer);
    return answer.status < 400 ? { content: result.content } : result;
  }
  const stored = JSON.parse(answer.bytes.toString('utf8')) as NonNullable<ReviewAppState['graded']>;
  return dueCardResult(services, token, deckId, {
    cardNoteId,
    rating,
    due: stored.due,
    scheduledDays: stored.scheduledDays,
    reviewLogId: stored.reviewLogId,
  });
}

/** The app's resource as both protocol generations register it (resources/list and resources/read). */
export const reviewAppResource = {
  name: 'Study Bridge review',
  uri: REVIEW_APP_URI,
  config: {
    title: 'Study Bridge review card',
    description: 'One review card: question, Show answer, the page picture, Again/Hard/Good/Easy (MCP App).',
    mimeType: MCP_APP_MIME,
    _meta: { ui: REVIEW_APP_UI_META },
  },
  read: async () => ({
    contents: [
      { uri: REVIEW_APP_URI, mimeType: MCP_APP_MIME, text: reviewPageHtml(), _meta: { ui: REVIEW_APP_UI_META } },
    ],
  }),
};
