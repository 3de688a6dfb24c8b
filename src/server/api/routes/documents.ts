import { z } from 'zod';
import { topicId } from './idParams';
import { defineRoute, Reply } from '../http/routeTable';
import { invalidInput } from '../../errors';
import { checkTocMode, planToc, writeToc } from '../../domain/library/documentToc';
import { exportDocument } from '../../domain/library/documentExport';
import { partImagePng } from '../../domain/library/partImage';
import { docParams, bookmd5Param, flag, isOn, pageNumber, refuseVirtual } from './documentParams';
import {
  exportResponse,
  outlineResponse,
  pagesResponse,
  partsResponse,
  syncStatusResponse,
  tocCandidatesResponse,
  tocWriteResponse,
} from './documentShapes';
import { locateResponse } from './locateShapes';

export { extractionProgress, outlineResponse } from './documentShapes';

const EX_ID = '0123456789abcdef0123456789abcdef';
const pageParams = z.object({ id: bookmd5Param, page: pageNumber });

const tocBody = z.object({
  entries: z
    .array(
      z.object({
        title: z.string().trim().min(1, 'title must not be empty').max(500),
        page: pageNumber,
        level: z.number().int('level must be an integer'),
        anchor: z.unknown().optional(),
      }),
    )
    .min(1, 'entries must not be empty')
    .max(5000)
    .optional(),
  useOriginal: z.boolean().optional(),
  useAI: z.boolean().optional(),
});

export const documentRoutes = [
  defineRoute({
    method: 'GET',
    path: '/documents/{id}/outline',
    summary:
      'Outline segments (the displayed TOC slot), hasToc, pageCount; a non-advancing source TOC is passed through unchanged.',
    params: docParams,
    response: outlineResponse,
    example: { params: { id: EX_ID } },
    handler: async ({ params, services }) => {
      const row = services.documents.get(params.id);
      const o = await services.pages.outline(row);
      return {
        bookmd5: row.bookmd5,
        segments: o.segments,
        hasToc: o.segments.length > 0,
        pageCount: row.page_count,
        tocSource: o.source,
        hasAiToc: !!row.outline_ai,
        extraction: services.documents.progress(row),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/documents/{id}/pages',
    summary:
      'Page text, at most 60 pages per call (OCR where there is no text layer); blocks=1 probes layout blocks on 1–2 pages.',
    params: docParams,
    query: z.object({ start: pageNumber, end: pageNumber.optional(), blocks: flag }),
    response: pagesResponse,
    example: { params: { id: EX_ID }, query: { start: '1', end: '2' } },
    handler: async ({ params, query, services }) => {
      refuseVirtual(query.start, query.end);
      // The reader types blocks as unknown[]; they are {index, text, label} (the API tests check it).
      return services.documentReader.pages(params.id, query.start, query.end, isOn(query.blocks)) as Promise<
        z.input<typeof pagesResponse>
      >;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/documents/{id}/pages/{page}/parts',
    summary: 'Handwriting and blank parts of a page (all topics merged; studySet only changes legacy priority).',
    params: pageParams,
    query: z.object({ studySet: z.string().max(64).optional() }),
    response: partsResponse,
    example: { params: { id: EX_ID, page: '1' } },
    handler: async ({ params, services }) => {
      refuseVirtual(params.page);
      return services.documentReader.parts(params.id, params.page);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/documents/{id}/pages/{page}/content/{contentId}',
    summary: 'Composite PNG of a part listed by parts; maxEdge 64–4096 (default 2048).',
    params: z.object({
      id: bookmd5Param,
      page: pageNumber,
      contentId: z
        .string()
        .min(1)
        .max(64)
        .regex(/^[A-Za-z0-9_-]+$/, 'contentId as listed by parts'),
    }),
    query: z.object({
      maxEdge: z.coerce.number().int().min(64, 'maxEdge is 64–4096').max(4096, 'maxEdge is 64–4096').optional(),
      studySet: z.string().max(64).optional(),
    }),
    replyType: 'image/png',
    example: { params: { id: EX_ID, page: '1', contentId: 'C1' } },
    handler: async ({ params, query, services }) => {
      refuseVirtual(params.page);
      const part = services.documentReader.partRow(params.id, params.page, params.contentId);
      const png = await partImagePng(services, params.id, params.page, part, query.maxEdge ?? 2048);
      return new Reply(png, 'image/png');
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/documents/{id}/toc-candidates',
    summary:
      'Heading candidates {page,text,height,anchor}, best first; 45 s budget then truncated + nextStart; shares concurrency 2 with pages.',
    params: docParams,
    query: z.object({ start: pageNumber.optional(), end: pageNumber.optional() }),
    response: tocCandidatesResponse,
    example: { params: { id: EX_ID }, query: { start: '1', end: '10' } },
    handler: async ({ params, query, services }) => {
      refuseVirtual(query.start, query.end);
      return services.documentReader.tocCandidates(params.id, query.start ?? 1, query.end);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/documents/{id}/toc',
    summary:
      'Writes the AI table of contents and displays it (original untouched), or switches with useOriginal / useAI. True dry-run.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: docParams,
    body: tocBody,
    response: tocWriteResponse,
    example: { params: { id: EX_ID }, body: { entries: [{ title: 'Introduction', page: 1, level: 0 }] } },
    preview: async ({ params, body, services }) => {
      checkTocMode(body);
      for (const e of body.entries ?? []) refuseVirtual(e.page);
      const row = services.documents.get(params.id);
      if (!body.entries) return { wouldDisplay: body.useAI ? 'ai' : 'original', pageCount: row.page_count };
      const plan = planToc(body.entries, row.page_count);
      return { wouldWrite: plan.segments.length, adjustedLevels: plan.adjustedLevels, pageCount: row.page_count };
    },
    handler: async ({ params, body, services }) => {
      checkTocMode(body);
      for (const e of body.entries ?? []) refuseVirtual(e.page);
      return writeToc(services.documents, params.id, body);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/documents/{id}/locate',
    scope: 'read', // reads only: a read token may call it
    summary:
      'Finds text on a page (fuzzy): found, matchedText, score, rect; statuses no_match / page_unreadable; alsoOn: the other pages it stands on (ambiguous: true when on 2+); navigate:true scrolls there.',
    params: docParams,
    body: z.object({
      page: pageNumber.pipe(z.number()),
      text: z.string().min(1, 'text must not be empty').max(5000),
      navigate: z.boolean().optional(),
    }),
    response: locateResponse,
    example: { params: { id: EX_ID }, body: { page: 1, text: 'Introduction' } },
    handler: async ({ params, body, services }) => {
      refuseVirtual(body.page);
      if (!body.text.trim()) throw invalidInput('text must not be blank.', { field: 'text' });
      return services.documentReader.locate(params.id, body.page, body.text, !!body.navigate, services.ui);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/documents/{id}/export',
    summary:
      "Flat PDF with a study set's card highlights drawn on the pages, into DocumentExports/; one export at a time (429 EXPORT_BUSY).",
    params: docParams,
    body: z.object({
      topicid: topicId,
      selectedPageNos: z
        .array(z.number().int('pages are integers').min(1, 'pages are 1-based'))
        .min(1, 'selectedPageNos must not be empty (omit it for the whole book)')
        .max(100_000)
        .optional(),
      includeRelatedBlankPages: z.boolean().optional(),
    }),
    response: exportResponse,
    example: { params: { id: EX_ID }, body: { topicid: '00000000-0000-0000-0000-000000000000' } },
    handler: async ({ params, body, services }) => {
      refuseVirtual(...(body.selectedPageNos ?? []));
      return exportDocument(services, services.config.exportFolder, params.id, body.topicid, body.selectedPageNos);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/documents/{id}/sync-status',
    summary:
      'State of the file behind the document (available_local_only, verified_mismatch, missing_file); verifyHash=1 re-hashes.',
    params: docParams,
    query: z.object({ verifyHash: flag }),
    response: syncStatusResponse,
    example: { params: { id: EX_ID } },
    handler: async ({ params, query, services }) => services.documents.syncStatus(params.id, isOn(query.verifyHash)),
  }),
];
