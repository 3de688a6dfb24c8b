import { z } from 'zod';
import { defineRoute } from '../http/routeTable';
import { titleFilter, topicTitle } from './topicFields';
import { bookmd5Param } from './documentParams';
import { EXAMPLE_UUID, topicId } from './idParams';

const EX_MD5 = '0123456789abcdef0123456789abcdef';
const setParams = z.object({ id: topicId });
const setDocParams = z.object({ id: topicId, docId: bookmd5Param });

export const studySetSummary = z.object({
  topicid: z.string(),
  title: z.string(),
  isStudySet: z.literal(true),
  rootNoteId: z.string().nullable(),
  noteCount: z.number().int(),
  documentCount: z.number().int(),
  mainDocument: z.string().nullable(),
  createdAt: z.string(),
  modifiedAt: z.string(),
});
export const studySetListResponse = z.object({ studySets: z.array(studySetSummary), count: z.number().int() });
export const studySetCreateResponse = studySetSummary.extend({ created: z.boolean() });

export const studySetDocument = z.object({
  bookmd5: z.string(),
  filename: z.string(),
  folder: z.string(),
  isMain: z.boolean(),
  sourceState: z.enum(['normal', 'missing_file']),
  pageCount: z.number().int(),
  extractionState: z.string(),
  addedAt: z.string(),
});
export const studySetDocumentsResponse = z.object({
  topicid: z.string(),
  documents: z.array(studySetDocument),
  mainDocument: z.string().nullable(),
  count: z.number().int(),
});
export const studySetDocumentAddResponse = z.object({
  topicid: z.string(),
  bookmd5: z.string(),
  alreadyPresent: z.boolean(),
  becameMainDocument: z.boolean(),
  addedToBooklist: z.boolean(),
});
export const studySetDocumentRemoveResponse = z.object({
  topicid: z.string(),
  bookmd5: z.string(),
  removed: z.literal(true),
  preRemoveSnapshotId: z.string(),
  notesLosingSource: z.array(z.string()),
  newMainDocument: z.string().nullable().optional(),
  placeholder: z.boolean(),
  warnings: z.array(z.string()),
});

export const studySetRoutes = [
  defineRoute({
    method: 'GET',
    path: '/library/study-sets',
    summary: 'Lists study sets (never decks); query filters by title.',
    query: titleFilter,
    response: studySetListResponse,
    handler: async ({ query, services }) => {
      const studySets = services.studySets.list(query.query);
      return { studySets, count: studySets.length };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/library/study-sets',
    summary: 'Creates a study set with one root card bearing its title; verify isStudySet:true.',
    premium: true,
    confirm: 'body',
    body: z.object({ title: topicTitle }),
    response: studySetCreateResponse,
    example: { body: { title: 'Linear algebra' } },
    handler: async ({ body, services }) => {
      const set = await services.studySets.create(body.title);
      return { ...set, created: true };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/documents',
    summary: "The set's documents: the main one first, then the booklist; sourceState normal or missing_file.",
    params: setParams,
    response: studySetDocumentsResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => services.studySetDocuments.list(params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/documents',
    summary:
      'Adds a library document to the set: the first becomes the main document (becameMainDocument), later ones join the booklist; idempotent (alreadyPresent).',
    premium: true,
    confirm: 'body',
    params: setParams,
    body: z.object({ bookmd5: bookmd5Param }),
    response: studySetDocumentAddResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { bookmd5: EX_MD5 } },
    handler: async ({ params, body, services }) => services.studySetDocuments.add(params.id, body.bookmd5),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/documents/{docId}/delete',
    destructive: {
      describe: ({ params }, dryRun) =>
        `remove document ${params.docId} from the set; ${(dryRun?.notesLosingSource as unknown[] | undefined)?.length ?? 0} card(s) lose their source link`,
    },
    summary:
      'Removes a document from the set (it stays in the library); anchored cards lose their source link; a snapshot is taken first. True dry-run: notesLosingSource, newMainDocumentAfter.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: setDocParams,
    response: studySetDocumentRemoveResponse,
    example: { params: { id: EXAMPLE_UUID, docId: EX_MD5 } },
    preview: async ({ params, services }) => services.studySetDocuments.previewRemove(params.id, params.docId),
    handler: async ({ params, services }) => services.studySetDocuments.remove(params.id, params.docId),
  }),
];
