import { z } from 'zod';
import { appendComment, deleteComment, editComment } from '../../domain/cards/noteComments';
import { editFold, previewFold } from '../../domain/cards/noteFold';
import { editHashtags, MAX_HASHTAGS_PER_CALL, previewHashtags } from '../../domain/cards/noteHashtags';
import { editMetadata, previewMetadata } from '../../domain/cards/noteMetadata';
import { editText, editTitle } from '../../domain/cards/noteTitleText';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { EXAMPLE_UUID } from './idParams';
import { colorIndex, fillIndex, noteId, noteIdList } from './noteParams';

const noteParams = z.object({ id: noteId });
const commentParams = z.object({
  id: noteId,
  index: z
    .string()
    .regex(/^\d{1,9}$/, 'index must be an integer: texts[].index of a comment, 1..N')
    .transform(Number),
});

/** The first 32 characters of the value last read ('' for an empty value); longer strings are cut to 32. */
const expectedPrefix = z.string({
  error: 'expectedPrefix is required: the first 32 characters of the value you last read ("" when empty)',
});
const MAX_TITLE = 2000;
const MAX_TEXT = 100_000;
const commentText = z
  .string()
  .max(MAX_TEXT)
  .refine(
    (s) => s.trim().length > 0,
    'text must not be empty (delete a comment with POST /notes/{id}/comments/{index}/delete)',
  );

const hashtagBody = z.object({
  noteIds: noteIdList(200),
  operation: z.enum(['add', 'remove', 'replace']),
  hashtags: z.array(z.string()).max(MAX_HASHTAGS_PER_CALL, `at most ${MAX_HASHTAGS_PER_CALL} hashtags per call`),
  includeDescendants: z.boolean().optional(),
});
const metadataBody = z.object({
  noteIds: noteIdList(200),
  patch: z.object({ colorIndex: colorIndex.optional(), fillIndex: fillIndex.optional() }),
});
const foldBody = z.object({ noteIds: noteIdList(200), folded: z.boolean() });

export const hashtagsResponse = z.object({
  persisted: z.boolean(),
  operation: z.enum(['add', 'remove', 'replace']),
  results: z.array(z.object({ noteid: z.string(), hashtags: z.array(z.string()) })),
  changed: z.number().int(),
});
export const metadataResponse = z.object({
  persisted: z.boolean(),
  results: z.array(
    z.object({ noteid: z.string(), colorIndex: z.number().int().nullable(), fillIndex: z.number().int().nullable() }),
  ),
  changed: z.number().int(),
});
export const foldResponse = z.object({
  persisted: z.boolean(),
  folded: z.boolean(),
  changed: z.array(z.string()),
  unchanged: z.array(z.string()),
  skipped: z.array(z.object({ noteid: z.string(), reason: z.string() })),
});
export const titleResponse = z.object({
  persisted: z.boolean(),
  noteid: z.string(),
  title: z.string(),
  updatedReferences: z.array(z.string()),
});
export const textResponse = z.object({
  persisted: z.boolean(),
  noteid: z.string(),
  kind: z.string().nullable(),
  detachedFromExcerpt: z.boolean(),
  updatedReferences: z.array(z.string()),
});
export const commentResponse = z.object({
  persisted: z.boolean(),
  noteid: z.string(),
  index: z.number().int(),
  kind: z.string(),
  linked: z.string().optional(),
  unlinked: z.string().optional(),
});
export const commentDeleteResponse = z.object({
  persisted: z.boolean(),
  noteid: z.string(),
  deleted: z.number().int(),
  renumbered: z.number().int(),
  commentCount: z.number().int(),
  unlinked: z.string().optional(),
});

/** Routes: hashtags, metadata, fold, title, text and comments. */
export const noteEditRoutes = [
  defineRoute({
    method: 'POST',
    path: '/notes/hashtags',
    summary:
      'Adds, removes or replaces hashtags on up to 200 cards: full leaf paths ("#" optional, segments joined by "/"; invalid → 422 INVALID_HASHTAG); case-insensitive, a set keeps its first spelling; includeDescendants only with remove; replace [] clears. One undo group per set. True dry-run: wouldChange. Verify persisted:true.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    body: hashtagBody,
    response: hashtagsResponse,
    example: { body: { noteIds: [EXAMPLE_UUID], operation: 'add', hashtags: ['Math/Algebra'] } },
    preview: async ({ body, services }) => previewHashtags(services.store, body),
    handler: async ({ body, services, actor }) => editHashtags(services.store, body, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/metadata',
    summary:
      'Sets colorIndex (0..15) and/or fillIndex (-1..2) of up to 200 cards; persisted:true only after an independent read-back agrees, else 500 SAVE_FAILED (retryable). True dry-run: wouldChange.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    body: metadataBody,
    response: metadataResponse,
    example: { body: { noteIds: [EXAMPLE_UUID], patch: { colorIndex: 3 } } },
    preview: async ({ body, services }) => previewMetadata(services.store, body.noteIds, body.patch),
    handler: async ({ body, services, actor }) => editMetadata(services.store, body.noteIds, body.patch, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/fold',
    summary:
      'Folds (folded:true) or unfolds up to 200 cards; leaf cards are skipped (no_children). True dry-run: wouldChange, skipped.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    body: foldBody,
    response: foldResponse,
    example: { body: { noteIds: [EXAMPLE_UUID], folded: true } },
    preview: async ({ body, services }) => previewFold(services.store, body.noteIds, body.folded),
    handler: async ({ body, services, actor }) => editFold(services.store, body.noteIds, body.folded, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/title',
    summary: `Sets a card's title (≤ ${MAX_TITLE} characters) and its reference copies' (updatedReferences); expectedPrefix (required) = the first 32 characters of the current title, else 409 PREFIX_MISMATCH with actualPrefix.`,
    premium: true,
    confirm: 'body',
    params: noteParams,
    body: z.object({ text: z.string().max(MAX_TITLE), expectedPrefix }),
    response: titleResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { text: 'Eigenvalues', expectedPrefix: 'Eigenvalue' } },
    handler: async ({ params, body, services, actor }) => editTitle(services.store, params.id, body, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/text',
    summary:
      "Sets a card's body (index 0; '' removes it) and its reference copies'; expectedPrefix required (409 PREFIX_MISMATCH); hashtags in the text → 422 HASHTAG_ROUTE_REQUIRED; an excerpt card is detached from the page text (detachedFromExcerpt) but keeps its source link.",
    premium: true,
    confirm: 'body',
    params: noteParams,
    body: z.object({ text: z.string().max(MAX_TEXT), expectedPrefix, markdown: z.boolean().optional() }),
    response: textResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { text: 'A scalar λ with Av = λv.', expectedPrefix: '' } },
    handler: async ({ params, body, services, actor }) => editText(services.store, params.id, body, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/comments',
    summary: 'Appends a comment (index max+1); a whole-line studybridge://note/<id> becomes a two-way link (linked).',
    premium: true,
    confirm: 'body',
    params: noteParams,
    body: z.object({ text: commentText }),
    response: commentResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { text: 'Compare with the spectral theorem.' } },
    handler: async ({ params, body, services, actor }) => appendComment(services.store, params.id, body.text, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/comments/{index}',
    summary:
      'Replaces comment {index} (texts[].index 1..N; 0 → 422; unknown → 404 COMMENT_NOT_FOUND); expectedPrefix required, a changed comment → 409 COMMENT_CHANGED.',
    premium: true,
    confirm: 'body',
    params: commentParams,
    body: z.object({ text: commentText, expectedPrefix }),
    response: commentResponse,
    example: {
      params: { id: EXAMPLE_UUID, index: '1' },
      body: { text: 'Compare with the spectral theorem.', expectedPrefix: 'Compare with' },
    },
    handler: async ({ params, body, services, actor }) =>
      editComment(services.store, params.id, params.index, body, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/comments/{index}/delete',
    destructive: { describe: ({ params }) => `delete comment ${params.index} of card ${params.id}` },
    summary:
      'Deletes comment {index}; later comments move up by one (indexes stay 1..N); a link comment removes its two-way link. expectedPrefix required (409 COMMENT_CHANGED).',
    premium: true,
    confirm: 'body',
    params: commentParams,
    body: z.object({ expectedPrefix }),
    response: commentDeleteResponse,
    example: { params: { id: EXAMPLE_UUID, index: '1' }, body: { expectedPrefix: 'Compare with' } },
    handler: async ({ params, body, services, actor }) =>
      deleteComment(services.store, params.id, params.index, body.expectedPrefix, actor),
  }),
] satisfies RouteDecl[];
