import { z } from 'zod';
import { defineRoute, Reply, type RouteDecl } from '../http/routeTable';
import { noteContent } from '../../domain/cards/noteContent';
import { planCardRender, renderCardPdf, renderCardPng, renderWarnings } from '../../domain/cards/cardRender';
import { MAX_MASKS, planOcclusions, writeOcclusions } from '../../domain/cards/imageOcclusions';
import { noteId } from './noteParams';

const EX_NOTE = '00000000-0000-4000-8000-000000000001';
const contentIdParam = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9_-]+$/, 'contentId as batch-get lists it in parts[]');

const unit = z.number().min(0, 'rect values are normalised 0..1').max(1, 'rect values are normalised 0..1');
const maskSchema = z
  .object({
    rect: z.object({
      x: unit,
      y: unit,
      width: unit.gt(0, 'width must be above 0'),
      height: unit.gt(0, 'height must be above 0'),
    }),
    group: z.number().int().min(0).max(1_000_000).optional(),
    flags: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
    isText: z.boolean().optional(),
  })
  .refine(
    (m) => m.rect.x + m.rect.width <= 1 + 1e-9 && m.rect.y + m.rect.height <= 1 + 1e-9,
    'a mask must lie inside the picture: x + width ≤ 1 and y + height ≤ 1',
  );

const occlusionBody = z.object({
  coordinateSpace: z.enum(['normalized', 'normalized_top_left']),
  operation: z.enum(['add', 'replace']),
  masks: z.array(maskSchema).min(1, 'masks: 1..200 boxes').max(MAX_MASKS, `masks: at most ${MAX_MASKS} boxes per call`),
  expectedSourceFingerprint: z.string().min(1).max(128),
  expectedMaskFingerprint: z.string().min(1).max(128).optional(),
  contentId: contentIdParam.optional(),
});

/** The confirmed answer; the dry-run's details are `planOcclusions(...).preview`. */
const occlusionResponse = z.object({
  persisted: z.literal(true),
  noteid: z.string(),
  contentId: z.string(),
  sourceFingerprint: z.string(),
  maskFingerprint: z.string(),
  maskCount: z.number().int(),
  added: z.number().int(),
  replaced: z.number().int(),
  deduplicated: z.number().int(),
  existingReviewCardCount: z.number().int(),
});

/** Routes: card images (content, render) and image occlusions. */
export const noteImageRoutes = [
  defineRoute({
    method: 'GET',
    path: '/notes/{id}/content/{contentId}',
    summary:
      'A content part of a card (contentId from batch-get parts[]): composite PNG of an excerpt region (rendered from its PDF), illustration or handwriting, longer edge maxEdge 64–4096 (default 2048; stored images are never enlarged), layers=base without occlusion masks; audio and video raw with their MIME type.',
    params: z.object({ id: noteId, contentId: contentIdParam }),
    query: z.object({
      maxEdge: z.coerce
        .number()
        .int('maxEdge is an integer')
        .min(64, 'maxEdge is 64–4096')
        .max(4096, 'maxEdge is 64–4096')
        .optional(),
      layers: z.enum(['composite', 'base']).optional(),
    }),
    example: { params: { id: EX_NOTE, contentId: `excerpt-${EX_NOTE}` }, query: { maxEdge: '1024' } },
    replyType: 'image/png',
    handler: async ({ params, query, services }) => {
      const c = await noteContent(services, params.id, params.contentId, {
        maxEdge: query.maxEdge ?? 2048,
        layers: query.layers ?? 'composite',
      });
      // The fingerprint rides along in a header so an agent can start an occlusion dry-run from it.
      const headers: Record<string, string> = c.picture
        ? { 'X-Source-Fingerprint': c.picture.sourceFingerprint, 'X-Mask-Count': String(c.picture.maskCount) }
        : {};
      return new Reply(c.bytes, c.mimeType, 200, headers);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/notes/{id}/render',
    summary:
      'The whole card (title, body, excerpt image with masks, pictures, comments, hashtags) as one long PNG or a PDF, width 320–1200 px (default 800); above 36 million pixels → 422 RENDER_TOO_LARGE before drawing.',
    params: z.object({ id: noteId }),
    query: z.object({
      format: z.enum(['png', 'pdf']).optional(),
      width: z.coerce
        .number()
        .int('width is an integer')
        .min(320, 'width is 320–1200')
        .max(1200, 'width is 320–1200')
        .optional(),
    }),
    example: { params: { id: EX_NOTE }, query: { format: 'png', width: '800' } },
    replyType: 'image/png',
    handler: async ({ params, query, services }) => {
      const layout = await planCardRender(services, params.id, query.width ?? 800);
      const warnings = renderWarnings(layout);
      const headers: Record<string, string> = {
        'X-Render-Width': String(layout.width),
        'X-Render-Height': String(layout.height),
        ...(warnings.length ? { 'X-Render-Warnings': warnings.join(' | ') } : {}),
      };
      if (query.format === 'pdf')
        return new Reply(await renderCardPdf(services, layout), 'application/pdf', 200, headers);
      return new Reply(await renderCardPng(services, layout), 'image/png', 200, headers);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/notes/{id}/image-occlusions',
    summary:
      'Occlusion masks on an image or anchored PDF-excerpt card: 1..200 boxes normalised 0..1 (top-left); add (same group and rect deduplicated) or replace. True dry-run: details has sourceFingerprint, maskFingerprint, wouldAdd, wouldReplace, deduplicated, resultingMaskCount, existingReviewCardCount. Both carry expectedSourceFingerprint (409 IMAGE_SOURCE_CHANGED, details hold the current one); confirm also expectedMaskFingerprint (409 OCCLUSION_CHANGED). Existing review cards keep old masks until rebuilt.',
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: z.object({ id: noteId }),
    body: occlusionBody,
    example: {
      params: { id: EX_NOTE },
      body: {
        coordinateSpace: 'normalized',
        operation: 'add',
        masks: [{ rect: { x: 0.1, y: 0.2, width: 0.3, height: 0.1 } }],
        expectedSourceFingerprint: '0123456789abcdef0123456789abcdef',
      },
    },
    response: occlusionResponse,
    preview: async ({ params, body, services }) => planOcclusions(services.store, params.id, body, false).preview,
    handler: async ({ params, body, services, actor }) => writeOcclusions(services.store, params.id, body, actor),
  }),
] satisfies RouteDecl[];
