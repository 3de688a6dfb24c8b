import { z } from 'zod';

/** The two sides of a due card (domain/decks/reviewFaces.ts), as GET /decks/{id}/due answers them. */

const CARD_HTML =
  'Sanitised on the bridge with an allow-list (formatting, lists, tables, ruby, links, pictures by Anki media name ' +
  'or PNG/JPEG/GIF/WebP data; no scripts, styles, frames, event handlers or script URLs): safe to draw as HTML.';

export const reviewQuestion = z.object({
  kind: z.enum(['title', 'cloze', 'text', 'content_part']),
  text: z.string(),
  html: z.string().describe(`The question as card HTML (a cloze as <span class="cloze">). ${CARD_HTML}`),
  contentId: z.string().optional(),
  contentKind: z.string().nullable().optional(),
});

export const reviewAnswer = z.object({
  title: z.string(),
  body: z.string(),
  excerpt: z.boolean(),
  page: z.number().int().nullable(),
  comments: z.array(z.string()),
  html: z.string().describe(`The body as card HTML (an imported Anki card: what its back adds). ${CARD_HTML}`),
});

export const facePictures = z
  .array(z.object({ name: z.string(), noteId: z.string(), contentId: z.string() }))
  .describe('The pictures the HTML names (<img src> an Anki media name): GET /notes/{noteId}/content/{contentId}');
