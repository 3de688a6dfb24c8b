import { z } from 'zod';
import { pdfRect } from './cardShapes';
import { bookmd5Param } from './documentParams';
import { topicId } from './idParams';

/** Request and response shapes of the bundle routes (services in src/server/domain/bundles). */

const pageNo = z.number().int('pages are integers').min(1, 'pages are 1-based (PDF order)');
/** POST /bundles/prepare's body fields (the route accepts unknown fields too, and lists them in ignoredFields). */
export const prepareShape = {
  topicid: topicId,
  bookmd5: bookmd5Param,
  segments: z
    .array(z.object({ startPage: pageNo, endPage: pageNo.optional(), title: z.string().max(500).optional() }))
    .min(1, 'give at least one segment {startPage, endPage}')
    .max(500),
  preset: z.string().max(100).optional(),
  anchorMode: z.string().max(100).optional(),
  title: z.string().max(500).optional(),
  cardStyle: z.object({ defaultFillIndex: z.number().optional() }).optional(),
  async: z.boolean().optional(),
};

/** The result options of check and submit. */
export const resultOptions = {
  resultMarkdown: z.string().optional(),
  withBlank: z.boolean().optional(),
  excerptMode: z.enum(['child', 'link']).optional(),
};

/** The client's request types (z.input of these). */
export const prepareRequest = z.object(prepareShape);
export const resultRequest = z.object(resultOptions);

const int = () => z.number().int();
const bundleState = z.enum(['preparing', 'prepared', 'imported', 'failed']);
const segment = z.object({ startPage: int(), endPage: int(), title: z.string().optional() });
const pageProgress = z.object({ pagesDone: int(), pagesTotal: int() });
const problem = z.object({
  line: int(),
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
});
/** ambiguous: it matches on several pages and neither its section nor reading order told which. */
const failReason = z.enum([
  'no_match',
  'below_threshold',
  'missing_info',
  'invalid_excerpt',
  'no_coordinates',
  'ambiguous',
]);
/** Other pages an excerpt matches on (all of them when none was chosen). */
const alsoOn = z.array(int());
const decidedBy = z.enum(['section', 'reading_order']);

/** POST /bundles/prepare: 200 when prepared at once; 202 (async) stops at state "preparing" with no version, root or files. */
export const prepareResponse = z.object({
  jobId: z.string(),
  bundleId: z.string(),
  bundlePath: z.string(),
  pagesTotal: int(),
  state: z.enum(['preparing', 'prepared']),
  version: int().optional(),
  rootNoteId: z.string().optional(),
  files: z.array(z.string()).optional(),
});

/** One entry of GET /bundles: version/rootNoteId only when prepared or imported, progress/running only while preparing, error only when failed. */
export const bundleEntry = z.object({
  bundleId: z.string(),
  jobId: z.string().nullable(),
  bundlePath: z.string(),
  topicid: z.string(),
  bookmd5: z.string(),
  title: z.string(),
  /** The library file name; null once the document left the library. */
  documentTitle: z.string().nullable(),
  preset: z.string(),
  anchorMode: z.string(),
  segments: z.array(segment),
  pagesTotal: int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  state: bundleState,
  version: int().optional(),
  rootNoteId: z.string().nullable().optional(),
  progress: pageProgress.optional(),
  running: z.boolean().optional(),
  error: z.string().nullable().optional(),
});

export const bundleListResponse = z.object({ bundles: z.array(bundleEntry), count: int() });

/** GET /bundles/{id}/files without path= (with path= the file itself, raw). */
export const bundleFilesResponse = z.object({
  bundleId: z.string(),
  bundlePath: z.string(),
  state: bundleState,
  files: z.array(
    z.object({
      path: z.string(),
      size: int(),
      modifiedAt: z.string(),
      hidden: z.boolean().optional(),
      doNotEdit: z.boolean().optional(),
    }),
  ),
  count: int(),
});

export const bundleFocusResponse = z.object({
  bundleId: z.string(),
  accepted: z.boolean(),
  state: bundleState,
  hint: z.string(),
});

export const bundleDiscardResponse = z.object({
  bundleId: z.string(),
  discarded: z.boolean(),
  /** Only when the bundle was discarded before. */
  alreadyDiscarded: z.boolean().optional(),
  cancelledJob: z.object({ jobId: z.string(), pagesDone: int(), pagesTotal: int() }).nullable(),
  folderRemoved: z.boolean(),
  /** Only when the bundle had been imported. */
  importedCardsKept: z.boolean().optional(),
  rootNoteId: z.string().nullable().optional(),
});

const parsedCounts = {
  headings: int(),
  importedCards: int(),
  wikilinks: int(),
  excerptsTotal: int(),
  excerptsAnchored: int(),
};

/** POST /bundles/{id}/check: the would-be import, nothing written. */
export const bundleCheckResponse = z.object({
  bundleId: z.string(),
  state: bundleState,
  ok: z.boolean(),
  /** Every card the import writes (its root, one per heading, excerpt child cards, blanks): what submit's cardsCreated will say. */
  cardsCreated: int(),
  parsed: z.object(parsedCounts),
  excerpts: z.array(
    z.object({
      cardKey: z.string(),
      kind: z.enum(['excerpt', 'block']),
      line: int(),
      excerpt: z.string(),
      anchored: z.boolean(),
      page: int().optional(),
      rect: pdfRect.optional(),
      /** One per line or fragment; rect is their union. */
      rects: z.array(pdfRect).optional(),
      score: z.number().optional(),
      reason: failReason.optional(),
      /** True when the excerpt matches on several pages: placed by decidedBy, or not anchored (reason ambiguous). */
      ambiguous: z.literal(true).optional(),
      alsoOn: alsoOn.optional(),
      decidedBy: decidedBy.optional(),
    }),
  ),
  tree: z.array(
    z.object({
      key: z.string(),
      parent: z.string().nullable(),
      depth: int(),
      title: z.string(),
      kind: z.enum(['card', 'excerpt', 'blank']),
      line: int(),
      hasExcerpt: z.boolean(),
      page: int().nullable(),
      texts: int(),
      colorIndex: int().nullable(),
      fillIndex: int().nullable(),
    }),
  ),
  problems: z.array(problem),
  /** Always present: the problems as "line N: …" lines (submit), excerptMode notes, lost cards and unanchored excerpts. */
  warnings: z.array(z.string()),
});

/** POST /bundles/{id}/submit: the receipt (parsed.headings = importedCards and excerptsTotal = excerptsAnchored when nothing was lost). */
export const bundleReceiptResponse = z.object({
  bundleId: z.string(),
  rootNoteId: z.string(),
  version: int(),
  replaced: z.boolean(),
  preImportSnapshotId: z.string(),
  persisted: z.boolean(),
  /** Every card this submit wrote (its root, one per heading, excerpt child cards, blanks); check predicts it. */
  cardsCreated: int(),
  receipt: z.array(z.object({ noteid: z.string(), title: z.string(), parent: z.string(), depth: int() })),
  parsed: z.object({
    ...parsedCounts,
    /** The first 50 in result.md order (excerptStatsTruncated says when there were more). */
    failedExcerpts: z.array(
      z.object({
        noteid: z.string(),
        excerpt: z.string(),
        reason: failReason,
        line: int(),
        score: z.number().optional(),
        alsoOn: alsoOn.optional(),
      }),
    ),
    /** Only when some excerpt matches on several pages (first 50): the page chosen (null: none, not anchored) and the others. */
    ambiguousExcerpts: z
      .array(
        z.object({
          noteid: z.string(),
          line: int(),
          excerpt: z.string(),
          page: int().nullable(),
          alsoOn,
          decidedBy: decidedBy.optional(),
        }),
      )
      .optional(),
  }),
  excerptStatsTruncated: z.boolean(),
  /** Only with withBlank. */
  blankInsertion: z.object({ requested: int(), created: int(), failed: int() }).optional(),
  problems: z.array(problem),
  /** Always present: the problems as "line N: …" lines (submit), excerptMode notes, lost cards and unanchored excerpts. */
  warnings: z.array(z.string()),
});
