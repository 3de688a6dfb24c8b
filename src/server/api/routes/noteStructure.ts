import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { copyNotes, copyRequests, planCopies, previewCopy } from '../../domain/cards/noteCopy';
import { deleteNotes, previewDelete } from '../../domain/cards/noteDelete';
import { mergeBranch, previewMerge } from '../../domain/cards/noteMerge';
import { moveNotes, moveRequests, planMoves } from '../../domain/cards/noteMove';
import { foldIntoSubMap } from '../../domain/cards/subMapFold';
import { EXAMPLE_UUID } from './idParams';
import { noteId, noteIdList } from './noteParams';
import { describeCardDelete } from '../../domain/approvals/approvalSummaries';

const EX_TARGET = '00000000-0000-4000-8000-000000000001';
const noteParams = z.object({ id: noteId });
const copyMode = z.enum(['reference', 'clone']);

const moveBody = z.object({
  noteIds: noteIdList(50).optional(),
  targetParentNoteId: noteId.optional(),
  moves: z
    .array(z.object({ noteId, targetParentNoteId: noteId }))
    .min(1, 'moves must hold at least one move')
    .max(50, 'at most 50 cards per call; split the batch')
    .optional(),
});

const copyBody = z.object({
  noteIds: noteIdList(50).optional(),
  targetParentNoteId: noteId.optional(),
  mode: copyMode.optional(),
  copies: z
    .array(z.object({ noteId, targetParentNoteId: noteId, mode: copyMode.optional() }))
    .min(1, 'copies must hold at least one copy')
    .max(50, 'at most 50 branch roots per call; split the batch')
    .optional(),
});

const skipped = z.array(z.object({ noteid: z.string(), reason: z.string() }));
export const moveResponse = z.object({
  persisted: z.boolean(),
  topicid: z.string(),
  moved: z.array(z.object({ noteid: z.string(), from: z.string().nullable(), to: z.string() })),
});
export const copyResponse = z.object({
  persisted: z.boolean(),
  topicid: z.string(),
  copies: z.array(
    z.object({
      sourceNoteId: z.string(),
      newNoteId: z.string(),
      cardCount: z.number().int(),
      mode: copyMode,
      targetParentNoteId: z.string(),
    }),
  ),
  skipped,
});
export const deleteResponse = z.object({
  persisted: z.boolean(),
  topicid: z.string(),
  deleted: z.array(
    z.object({
      noteid: z.string(),
      outcome: z.enum(['deleted', 'hidden']),
      orphanedChildren: z.number().int(),
      descendants: z.number().int(),
      childrenReattachedTo: z.string(),
    }),
  ),
  trashEnabled: z.boolean(),
});
export const mergeResponse = z.object({
  persisted: z.boolean(),
  noteid: z.string(),
  merged: z.array(z.string()),
  notMergedCount: z.number().int(),
  skipped,
});
export const subMapFoldResponse = z.object({
  persisted: z.boolean(),
  noteid: z.string(),
  isSubMapRoot: z.boolean(),
  changed: z.boolean(),
});

/** Routes: move, copy, delete, merge-branch and fold-into-sub-map. */
export const noteStructureRoutes = [
  defineRoute({
    method: 'POST',
    path: '/notes/move',
    summary:
      'Moves up to 50 cards within one set: {noteIds, targetParentNoteId} or {moves:[{noteId, targetParentNoteId}]}; each becomes the last child of its target, other siblings keep their order. 422 WOULD_CREATE_CYCLE, ROOT_CARD, NOTES_IN_DIFFERENT_SETS. True dry-run: wouldMove.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    body: moveBody,
    response: moveResponse,
    example: { body: { noteIds: [EXAMPLE_UUID], targetParentNoteId: EX_TARGET } },
    preview: async ({ body, services }) => ({ wouldMove: planMoves(services.store, moveRequests(body)).moves }),
    handler: async ({ body, services, actor }) => moveNotes(services.store, moveRequests(body), actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/copy',
    summary:
      "Copies up to 50 whole branches under a target card (any set): mode 'clone' (independent; links inside the branch point at the copies) or 'reference' (content kept in step with the original). A card below another selected card is skipped (covered_by_selected_ancestor). True dry-run: wouldCopy, skipped.",
    premium: true,
    confirm: 'body',
    dryRun: true,
    body: copyBody,
    response: copyResponse,
    example: { body: { noteIds: [EXAMPLE_UUID], targetParentNoteId: EX_TARGET, mode: 'clone' } },
    preview: async ({ body, services }) => previewCopy(planCopies(services.store, copyRequests(body))),
    handler: async ({ body, services, actor }) => copyNotes(services.store, copyRequests(body), actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/delete',
    destructive: { describe: (_input, dryRun) => describeCardDelete(dryRun) },
    summary:
      "Deletes up to 50 cards of one set; their children take the deleted card's place under its parent (childrenReattachedTo grandparent). Cards used by review decks are hidden (outcome hidden), others deleted; no trash. 422 ROOT_CARD. True dry-run: wouldDelete, cards.",
    premium: true,
    confirm: 'body',
    dryRun: true,
    body: z.object({ noteIds: noteIdList(50) }),
    response: deleteResponse,
    example: { body: { noteIds: [EXAMPLE_UUID] } },
    preview: async ({ body, services }) => previewDelete(services.store, body.noteIds),
    handler: async ({ body, services, actor }) => deleteNotes(services.store, body.noteIds, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/merge-branch',
    summary:
      "Merges the card's children (recursive:true: its whole subtree) into it: titles and texts become its comments, hashtags join it, the merged cards disappear and their other children move up. Summary cards and sub-map roots are skipped. True dry-run: willMerge, notMergedCount, skipped.",
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: noteParams,
    body: z.object({ recursive: z.boolean().optional() }),
    response: mergeResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { recursive: false } },
    preview: async ({ params, body, services }) => previewMerge(services.store, params.id, body.recursive ?? false),
    handler: async ({ params, body, services, actor }) =>
      mergeBranch(services.store, params.id, body.recursive ?? false, actor),
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/fold-into-sub-map',
    summary:
      'Makes the card a sub-map root holding its descendants (422 NO_CHILDREN for a leaf); undo:true expands it back (422 NOT_A_SUB_MAP when it is none).',
    premium: true,
    confirm: 'body',
    params: noteParams,
    body: z.object({ undo: z.boolean().optional() }),
    response: subMapFoldResponse,
    example: { params: { id: EXAMPLE_UUID }, body: {} },
    handler: async ({ params, body, services, actor }) =>
      foldIntoSubMap(services.store, params.id, body.undo ?? false, actor),
  }),
] satisfies RouteDecl[];
