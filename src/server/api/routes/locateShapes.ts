import { z } from 'zod';

/** PDF points, top-left origin. */
const rect = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

/** POST /documents/{id}/locate's answer. */
export const locateResponse = z.object({
  bookmd5: z.string(),
  page: z.number().int(),
  found: z.boolean(),
  status: z.string(),
  matchedText: z.string().optional(),
  score: z.number(),
  rect: rect.optional(),
  /** One per line or fragment of the match; rect is their union. */
  rects: z.array(rect).optional(),
  pageSize: z.object({ width: z.number(), height: z.number() }).optional(),
  algorithm: z.string(),
  /** True when the text stands on two or more pages of the book (this one included when found here). */
  ambiguous: z.literal(true).optional(),
  /** The other pages of the book the text stands on (a book extracted to the end; absent when none). */
  alsoOn: z.array(z.number().int()).optional(),
  navigated: z.boolean().optional(),
  reason: z.string().optional(),
});
