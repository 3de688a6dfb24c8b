import { z } from 'zod';
import { defineRoute } from '../http/routeTable';
import { titleFilter, topicTitle } from './topicFields';
import { bookmd5Param } from './documentParams';
import { EXAMPLE_UUID, topicId } from './idParams';

const EX_MD5 = '0123456789abcdef0123456789abcdef';
const setParams = z.object({ id: topicId });
const setDocParams = z.object({ id: topicId, docId: bookmd5Param });

export const studySetRoutes = [
  defineRoute({
    method: 'GET',
    path: '/library/study-sets',
    summary: 'Lists study sets (never decks); query filters by title.',
    query: titleFilter,
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
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => services.studySetDocuments.list(params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/documents',
    summary: 'Adds a library document to the set: the first becomes the main document (becameMainDocument), later ones join the booklist; idempotent (alreadyPresent).',
    premium: true,
    confirm: 'body',
    params: setParams,
    body: z.object({ bookmd5: bookmd5Param }),
    example: { params: { id: EXAMPLE_UUID }, body: { bookmd5: EX_MD5 } },
    handler: async ({ params, body, services }) => services.studySetDocuments.add(params.id, body.bookmd5),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/documents/{docId}/delete',
    summary: 'Removes a document from the set (it stays in the library); anchored cards lose their source link; a snapshot is taken first. True dry-run: notesLosingSource, newMainDocumentAfter.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: setDocParams,
    example: { params: { id: EXAMPLE_UUID, docId: EX_MD5 } },
    preview: async ({ params, services }) => services.studySetDocuments.previewRemove(params.id, params.docId),
    handler: async ({ params, services }) => services.studySetDocuments.remove(params.id, params.docId),
  }),
];
