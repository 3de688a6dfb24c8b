import { z } from 'zod';
import { defineRoute, Reply, type RouteDecl } from '../http/routeTable';
import { planAnnotationImport } from '../../domain/annotations/annotationPlan';
import { previewAnnotationImport, writeAnnotationImport } from '../../domain/annotations/annotationImport';
import { annotatedPdf } from '../../domain/annotations/annotatedExport';
import { docParams } from './documentParams';
import { EXAMPLE_UUID, topicId } from './idParams';

const EX_ID = '0123456789abcdef0123456789abcdef';

export const annotationImportResponse = z.object({
  topicid: z.string(),
  bookmd5: z.string(),
  created: z.array(z.object({ noteid: z.string(), kind: z.string(), page: z.number().int(), text: z.string() })),
  skipped: z.array(z.object({ kind: z.string(), page: z.number().int(), reason: z.string() })),
  alreadyImported: z.number().int(),
});

/** Routes: the highlights and notes already in a PDF in as cards, and a set's excerpts out as a highlighted PDF. */
export const annotationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/documents/{id}/annotations/import',
    summary:
      "Turns the PDF's own annotations into cards of the set, under its root card: Highlight/Underline/Squiggly/StrikeOut → excerpt cards of the text under their quads (rects: one per quad), colour → nearest palette colour, /Contents → comment; FreeText and Text notes → cards of their text at their rectangle; Ink and other kinds → skipped[] with a reason. Importing again creates nothing new (key: page + rectangles). No annotations → 422 NO_ANNOTATIONS. True dry-run: wouldCreate, cards, skipped.",
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: docParams,
    body: z.object({ topicid: topicId }),
    response: annotationImportResponse,
    example: { params: { id: EX_ID }, body: { topicid: EXAMPLE_UUID } },
    preview: async ({ params, body, services }) =>
      previewAnnotationImport(await planAnnotationImport(services, params.id, body.topicid)),
    handler: async ({ params, body, services, actor }) =>
      writeAnnotationImport(services.store, await planAnnotationImport(services, params.id, body.topicid), actor),
  }),
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/annotated-pdf',
    summary:
      'A copy of the book (bookmd5) in which every card of the set anchored on it is a standard Highlight annotation (QuadPoints, appearance stream, palette colour, title and comments as /Contents): any PDF reader shows them, and POST /documents/{id}/annotations/import reads them back. No such card → 422 NO_EXCERPT_CARDS; one export at a time (503 EXPORT_BUSY).',
    params: z.object({ id: topicId }),
    query: z.object({
      bookmd5: z
        .string({ error: 'bookmd5 is required: the book to copy' })
        .regex(/^[0-9a-f]{32}$/, 'bookmd5 must be a document id (32 lowercase hex digits)'),
    }),
    replyType: 'application/pdf',
    example: { params: { id: EXAMPLE_UUID }, query: { bookmd5: EX_ID } },
    handler: async ({ params, query, services }) => {
      const r = await annotatedPdf(services, params.id, query.bookmd5);
      return new Reply(r.pdf, 'application/pdf', 200, {
        'Content-Disposition': `attachment; filename="${r.fileName.replace(/[^\x20-\x7e]|"/g, '_')}"; filename*=UTF-8''${encodeURIComponent(r.fileName)}`,
        'X-Highlight-Count': String(r.highlights),
      });
    },
  }),
] satisfies RouteDecl[];
