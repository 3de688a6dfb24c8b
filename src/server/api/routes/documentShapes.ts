import { z } from 'zod';

/** The answers of the /documents/{id}/… routes (documents.ts), as OpenAPI and the client see them. */

const rect = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
export const extractionProgress = z.object({
  state: z.enum(['pending', 'extracting', 'ready', 'failed']),
  extractedPages: z.number().int(),
  pageCount: z.number().int(),
  error: z.string().optional(),
  /** Why extraction failed, as a code (PDF_TOO_COMPLEX: over a PDF worker's memory or time budget). */
  errorCode: z.string().optional(),
});
export const outlineResponse = z.object({
  bookmd5: z.string(),
  segments: z.array(z.object({ startPage: z.number().int(), title: z.string(), level: z.number().int() })),
  hasToc: z.boolean(),
  pageCount: z.number().int(),
  tocSource: z.string(),
  hasAiToc: z.boolean(),
  extraction: extractionProgress,
});
export const pagesResponse = z.object({
  bookmd5: z.string(),
  pageCount: z.number().int(),
  start: z.number().int(),
  end: z.number().int(),
  pages: z.array(
    z.object({
      page: z.number().int(),
      text: z.string(),
      source: z.string().optional(),
      outOfRange: z.boolean().optional(),
      blocks: z.array(z.object({ index: z.number().int(), text: z.string(), label: z.string() })).optional(),
    }),
  ),
  extraction: extractionProgress,
});
export const partsResponse = z.object({
  bookmd5: z.string(),
  page: z.number().int(),
  pageCount: z.number().int(),
  parts: z.array(
    z.object({
      contentId: z.string(),
      kind: z.string(),
      rect: rect.nullable(),
      topicid: z.string().nullable(),
      contentPath: z.string(),
      mimeType: z.string(),
    }),
  ),
  blanks: z.array(
    z.object({
      contentIds: z.array(z.string()),
      kind: z.string(),
      segments: z.array(rect),
      topicid: z.string().nullable(),
      contentPath: z.string(),
    }),
  ),
  mapBacked: z.boolean(),
  topicFilteringApplied: z.boolean(),
});
export const tocCandidatesResponse = z.object({
  bookmd5: z.string(),
  items: z.array(
    z.object({
      page: z.number().int(),
      text: z.string(),
      height: z.number(),
      anchor: z.object({ x: z.number(), y: z.number(), page: z.number().int() }),
    }),
  ),
  candidates: z.number().int(),
  pagesScanned: z.number().int(),
  truncated: z.boolean(),
  nextStart: z.number().int().optional(),
  pageCount: z.number().int(),
  hint: z.string(),
});
export const tocWriteResponse = z.object({
  bookmd5: z.string(),
  displayed: z.enum(['ai', 'original']),
  written: z.number().int().optional(),
  adjustedLevels: z
    .array(z.object({ index: z.number().int(), from: z.number().int(), to: z.number().int() }))
    .optional(),
  pageCount: z.number().int().optional(),
  persisted: z.boolean(),
});
export const exportResponse = z.object({
  bookmd5: z.string(),
  topicid: z.string(),
  exported: z.boolean(),
  fileName: z.string(),
  path: z.string(),
  folder: z.string(),
  pageCount: z.number().int(),
  bytes: z.number().int(),
  highlightCount: z.number().int(),
  selectedPageNos: z.array(z.number().int()).optional(),
});
export const syncStatusResponse = z.object({
  bookmd5: z.string(),
  path: z.string(),
  fileExists: z.boolean(),
  expectedByCurrentSettings: z.boolean(),
  hasLearningData: z.boolean(),
  remainingUnverifiedMaterializedMappingCount: z.number().int(),
  state: z.string(),
  size: z.number().int().optional(),
  hashVerification: z.string(),
  actualMd5: z.string().optional(),
});
