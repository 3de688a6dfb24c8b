import { z } from 'zod';

/** Response shapes several card routes share (tree, batch-get, create). */

/** PDF points, top-left origin, as POST /documents/{id}/locate answers. */
export const pdfRect = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

export const sourceAnchor = z.object({
  hasExcerpt: z.boolean(),
  bookmd5: z.string().nullable(),
  page: z.number().int().nullable(),
  rect: pdfRect.nullable(),
  /** One per line or fragment; [rect] for older cards, [] when not placed. */
  rects: z.array(pdfRect),
});

export const treeNode = z.object({
  noteid: z.string(),
  parent: z.string().nullable(),
  depth: z.number().int(),
  level: z.number().int(),
  childCount: z.number().int(),
  subMapId: z.string().nullable(),
  isSubMapRoot: z.boolean(),
  title: z.string(),
  /** title, else the first words of the card's excerpt or body ('' when it has neither). */
  displayTitle: z.string(),
  folded: z.boolean(),
  colorIndex: z.number().int().nullable(),
  fillIndex: z.number().int().nullable(),
  hasExcerpt: z.boolean(),
  page: z.number().int().nullable(),
});

export const cardText = z.object({
  index: z.number().int(),
  text: z.string(),
  excerpt: z.boolean(),
  noteid: z.string(),
  kind: z.string(),
});

export const cardPart = z.object({
  contentId: z.string().nullable(),
  index: z.number().int(),
  kind: z.string(),
  noteid: z.string(),
  excerpt: z.boolean(),
  mimeType: z.string().nullable(),
  textIndex: z.number().int().optional(),
});

export const hashtagPath = z.object({
  hashtag: z.string(),
  path: z.string(),
  name: z.string(),
  segments: z.array(z.string()),
  depth: z.number().int(),
  ancestors: z.array(z.string()),
});

/** One card as POST /notes/batch-get reads it. */
export const card = z.object({
  noteid: z.string(),
  topicid: z.string(),
  parent: z.string().nullable(),
  title: z.string(),
  kind: z.string(),
  referenceOf: z.string().nullable(),
  texts: z.array(cardText),
  parts: z.array(cardPart),
  metadata: z.object({ colorIndex: z.number().int().nullable(), fillIndex: z.number().int().nullable() }),
  hashtags: z.array(z.string()),
  hashtagPaths: z.array(hashtagPath),
  sourceAnchor,
  links: z.array(z.string()),
  folded: z.boolean(),
  isSubMapRoot: z.boolean(),
  childCount: z.number().int(),
  createdAt: z.string(),
  modifiedAt: z.string(),
});

export const snapshotSummary = z.object({
  snapshotId: z.string(),
  topicid: z.string(),
  description: z.string(),
  label: z.string(),
  noteCount: z.number().int(),
  createdAt: z.string(),
  kind: z.string(),
  version: z.number().int(),
});
