import { z } from 'zod';
import { topicId } from './idParams';
import { defineRoute } from '../http/routeTable';
import { defaultLimits } from '../../config';
import { listFolders } from '../../domain/library/libraryFolders';
import { docParams } from './documentParams';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { uploadDocument } from '../../domain/library/documentUpload';
import { checkImportPath } from '../../domain/library/importPath';
import { deleteDocument } from '../../domain/library/documentDelete';
import { extractionProgress } from './documents';
import { describeDocumentDelete } from '../../domain/approvals/approvalSummaries';

export const uploadResponse = z.object({
  bookmd5: z.string(),
  created: z.boolean(),
  filename: z.string(),
  folder: z.string(),
  addedToStudySet: z.boolean(),
  movedToFolder: z.boolean(),
  pageCount: z.number().int(),
  hasToc: z.boolean().optional(),
  extraction: extractionProgress,
  alreadyPresent: z.boolean().optional(),
});
export const documentDeleteResponse = z.object({
  bookmd5: z.string(),
  removed: z.boolean(),
  partial: z.boolean(),
  fileRemoved: z.boolean(),
  removedFromStudySets: z.number().int(),
});
export const foldersResponse = z.object({
  path: z.string(),
  folders: z.array(
    z.object({ path: z.string(), name: z.string(), depth: z.number().int(), fileCount: z.number().int() }),
  ),
  count: z.number().int(),
});

export const libraryDocumentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/library/documents/upload',
    summary:
      'Uploads a PDF (raw bytes; query filename, folder, topicid). Same bytes twice → the existing bookmd5; never overwrites a file. Over the size limit 413, over the page limit 422 PDF_TOO_MANY_PAGES.',
    premium: true,
    confirm: 'query',
    rawBody: { limitBytes: defaultLimits.uploadBytes, stream: true, mediaType: 'application/pdf' },
    query: z.object({
      filename: z.string().min(1, 'filename is required').max(255),
      folder: z.string().max(1024).optional(),
      topicid: topicId.optional(),
    }),
    response: uploadResponse,
    example: { query: { filename: 'book.pdf' } },
    handler: async ({ query, bodyStream, services }) =>
      uploadDocument(services, {
        body: bodyStream,
        filename: query.filename,
        folder: query.folder,
        topicid: query.topicid,
      }),
  }),
  defineRoute({
    method: 'POST',
    path: '/library/documents/import',
    summary:
      'Adds a PDF on this machine by path (MCP: study_upload): read by the bridge from the library or an import folder (403 PATH_NOT_ALLOWED elsewhere, 404 FILE_NOT_FOUND), then checked and stored exactly like upload; same answer.',
    premium: true,
    confirm: 'body',
    body: z.object({
      path: z.string().min(1, 'path is required').max(4096),
      filename: z.string().min(1).max(255).optional(),
      folder: z.string().max(1024).optional(),
      topicid: topicId.optional(),
    }),
    response: uploadResponse,
    example: { body: { path: '~/Downloads/paper.pdf' } },
    handler: async ({ body, services }) => {
      const file = checkImportPath(services.config, body.path);
      return uploadDocument(services, {
        body: createReadStream(file),
        filename: body.filename ?? basename(file),
        folder: body.folder,
        topicid: body.topicid,
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/library/documents/{id}/delete',
    destructive: { describe: ({ params, services }) => describeDocumentDelete(services.store, params.id) },
    summary:
      'Deletes a document from the library (file and records); 409 DOCUMENT_IN_USE while cards are anchored to it.',
    premium: true,
    confirm: 'body',
    params: docParams,
    response: documentDeleteResponse,
    example: { params: { id: '0123456789abcdef0123456789abcdef' } },
    handler: async ({ params, services }) => deleteDocument(services, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/library/folders',
    summary: 'Lists library folders below path ("" = root), depth levels deep.',
    query: z.object({
      path: z.string().max(1024).optional(),
      depth: z.coerce.number().int().min(1).max(16).optional(),
    }),
    response: foldersResponse,
    handler: async ({ query, services }) => {
      const r = listFolders(services.config.libraryDir, query.path, query.depth ?? 1);
      return { ...r, count: r.folders.length };
    },
  }),
];
