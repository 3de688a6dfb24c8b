import { z } from 'zod';
import { createAgentSnapshot, listSnapshots } from '../../domain/cards/snapshots';
import { previewRestore, restoreSnapshot } from '../../domain/cards/snapshotRestore';
import { deleteStudySet } from '../../domain/cards/studySetDelete';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import { EXAMPLE_UUID, topicId, uuidParam } from './idParams';
import { snapshotSummary } from './cardShapes';
import { describeRestore, describeSetDelete } from '../../domain/approvals/approvalSummaries';

const setParams = z.object({ id: topicId });
const snapshotParams = z.object({ id: uuidParam('snapshotId') });

export const snapshotListResponse = z.object({ topicid: z.string(), snapshots: z.array(snapshotSummary) });
export const snapshotCreateResponse = snapshotSummary.extend({ created: z.boolean() });
export const restoreResponse = z.object({
  persisted: z.literal(true),
  topicid: z.string(),
  restoredSnapshotId: z.string(),
  protectionSnapshotId: z.string(),
  noteCount: z.number().int(),
  version: z.number().int(),
  notCovered: z.array(z.string()),
  overwrittenUserEdits: z
    .array(z.object({ noteid: z.string(), title: z.string(), operations: z.array(z.string()) }))
    .optional(),
});
export const setDeleteResponse = z.object({
  removedFromLibrary: z.literal(true),
  topicid: z.string(),
  kind: z.enum(['studyset', 'deck']),
  preDeleteSnapshotId: z.string().nullable(),
  keepHighlights: z.boolean(),
  cardsHidden: z.number().int().optional(),
  cardsDeleted: z.number().int().optional(),
  reviewCardsHidden: z.number().int().optional(),
  reviewCardsDeleted: z.number().int().optional(),
});

/** Routes: snapshots list, create and restore; deleting a study set or deck (which snapshots first). */
export const snapshotRoutes = [
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/snapshots',
    summary:
      'The set\'s snapshots, newest first: snapshotId, description, label ("Agent: …" for an agent\'s), noteCount, createdAt, kind, version (1-based place in the history).',
    params: setParams,
    response: snapshotListResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => ({
      topicid: params.id,
      snapshots: listSnapshots(services.store, params.id),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/snapshots',
    summary:
      'Snapshots the set\'s cards now (no confirm). The description is stored without a leading "Agent:" (the label adds it). Unchanged content since the last snapshot answers that one with created:false and a SNAPSHOT_REUSED warning.',
    premium: true,
    params: setParams,
    body: z.object({ description: z.string().max(500).optional() }),
    response: snapshotCreateResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { description: 'Before reorganising chapter 2' } },
    handler: async ({ params, body, services }) =>
      createAgentSnapshot(services.store, services.snapshotFiles, params.id, body.description ?? ''),
  }),
  defineRoute({
    method: 'POST',
    path: '/snapshots/{id}/restore',
    destructive: {
      when: { says: "with force:true (overwrites the person's edits)", test: ({ body }) => body.force === true },
      describe: (_input, dryRun) => describeRestore(dryRun),
    },
    summary:
      "Returns the set's cards to the snapshot, after a protection snapshot of the current state (protectionSnapshotId). 409 STUDY_SET_IN_USE while the set is open in the UI; 409 USER_EDITS_PRESENT with changedNodes when the person edited cards since (force:true overrides, with their consent). 422 SNAPSHOT_UNREADABLE (details: snapshotId, reason missing|corrupt, problem, file) when the snapshot's content file is missing or damaged, dry-run included; nothing is changed. Document tables of contents are not covered. True dry-run: wouldRestoreToVersion, noteCountInSnapshot, currentNoteCount, changedNodes, studySetInUse.",
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: snapshotParams,
    body: z.object({ force: z.boolean().optional() }),
    response: restoreResponse,
    example: { params: { id: EXAMPLE_UUID }, body: {} },
    preview: async ({ params, services }) =>
      previewRestore(services.store, services.snapshotFiles, services.ui, params.id),
    handler: async ({ params, body, services, actor }) =>
      restoreSnapshot(services.store, services.snapshotFiles, services.ui, params.id, {
        force: body.force === true,
        actor,
      }),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/delete',
    destructive: {
      describe: ({ params, body, services }) =>
        describeSetDelete(services.store, params.id, body.keepHighlights === false),
    },
    summary:
      'Removes a study set or a deck from the library (removedFromLibrary). expectedTitle must equal its title exactly (else 409 TITLE_MISMATCH with actualTitle). Default keepHighlights:true hides it and its cards (highlights stay) after a snapshot (preDeleteSnapshotId); keepHighlights:false removes it for good.',
    premium: true,
    confirm: 'body',
    params: setParams,
    body: z.object({
      expectedTitle: z.string().min(1, 'expectedTitle must be the exact title of the set or deck'),
      keepHighlights: z.boolean().optional(),
      keepSnapshotHistory: z.boolean().optional(),
    }),
    response: setDeleteResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { expectedTitle: 'Linear algebra' } },
    handler: async ({ params, body, services, actor }) =>
      deleteStudySet(services.store, services.snapshotFiles, params.id, {
        expectedTitle: body.expectedTitle,
        keepHighlights: body.keepHighlights ?? true,
        keepSnapshotHistory: body.keepSnapshotHistory ?? true,
        actor,
      }),
  }),
] satisfies RouteDecl[];
