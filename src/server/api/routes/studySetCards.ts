import { z } from 'zod';
import { defineRoute, type RouteDecl } from '../http/routeTable';
import {
  MAX_BATCH_CARDS,
  createCard,
  planBatch,
  previewBatch,
  writeBatch,
  type BatchCardInput,
} from '../../domain/cards/noteBatchCreate';
import { BridgeError, invalidInput } from '../../errors';
import { readSubMaps, readTree } from '../../domain/cards/cardTree';
import { readSetHashtags } from '../../domain/cards/setHashtags';
import { readNotePalette } from '../../domain/cards/notePalette';
import { readNotebooks } from '../../domain/cards/setNotebooks';
import { openStudySet } from '../../domain/cards/studySetOpen';
import { bookmd5Param, pageNumber, refuseVirtual } from './documentParams';
import { EXAMPLE_UUID, topicId } from './idParams';
import { colorIndex, fillIndex, noteId } from './noteParams';
import { sourceAnchor, treeNode } from './cardShapes';

const EX_MD5 = '0123456789abcdef0123456789abcdef';
const setParams = z.object({ id: topicId });

const notAnchoredWarnings = z.array(
  z.union([
    z.object({
      code: z.literal('EXCERPT_NOT_ANCHORED'),
      reason: z.enum(['no_match', 'page_unreadable']),
      message: z.string(),
    }),
    /** Not found near excerpt.near: anchored to that box. */
    z.object({
      code: z.literal('EXCERPT_SELECTION_BOX'),
      reason: z.enum(['no_match', 'page_unreadable']),
      message: z.string(),
    }),
    /** Anchored on the given page; the text stands on alsoOn too. */
    z.object({ code: z.literal('EXCERPT_AMBIGUOUS'), alsoOn: z.array(z.number().int()), message: z.string() }),
  ]),
);
/** When the excerpt stands on several pages of the book: anchored on the page given, alsoOn the others. */
const ambiguity = { ambiguous: z.literal(true).optional(), alsoOn: z.array(z.number().int()).optional() };
export const noteCreateResponse = z.object({
  noteid: z.string(),
  topicid: z.string(),
  parentNoteId: z.string(),
  title: z.string(),
  persisted: z.literal(true),
  sourceAnchor,
  ...ambiguity,
  warnings: notAnchoredWarnings.optional(),
});
/** The route's answer: one card (noteCreateResponse), or with `cards` one entry per card in batch order. */
export const noteCreateRouteResponse = noteCreateResponse
  .partial({ noteid: true, parentNoteId: true, title: true, sourceAnchor: true })
  .extend({
    count: z.number().int().optional(),
    cards: z
      .array(
        z.object({
          index: z.number().int(),
          noteid: z.string(),
          parentNoteId: z.string(),
          title: z.string(),
          sourceAnchor,
          ...ambiguity,
          warnings: notAnchoredWarnings.optional(),
        }),
      )
      .optional(),
    /** Indexes of the cards whose excerpt found no rectangle on its page. */
    notAnchored: z.array(z.number().int()).optional(),
  });
export const treeResponse = z.object({
  topicid: z.string(),
  rootNoteId: z.string(),
  setRootNoteId: z.string().nullable(),
  nodes: z.array(treeNode),
  count: z.number().int(),
});
export const subMapsResponse = z.object({
  topicid: z.string(),
  subMaps: z.array(
    z.object({
      noteid: z.string(),
      title: z.string(),
      cardCount: z.number().int(),
      parentPath: z.array(z.string()),
      depth: z.number().int(),
      level: z.number().int(),
      subMapId: z.string().nullable(),
    }),
  ),
  count: z.number().int(),
});
export const notebooksResponse = z.object({
  topicid: z.string(),
  notebooks: z.array(
    z.object({
      bookmd5: z.string(),
      filename: z.string().nullable(),
      isMain: z.boolean(),
      isMember: z.boolean(),
      anchoredCardCount: z.number().int(),
      pageCount: z.number().int().nullable(),
      sourceState: z.string(),
    }),
  ),
  count: z.number().int(),
});
export const setHashtagsResponse = z.object({
  topicid: z.string(),
  hashtags: z.array(
    z.object({
      path: z.string(),
      hashtag: z.string(),
      name: z.string(),
      depth: z.number().int(),
      directCardCount: z.number().int(),
      cardCount: z.number().int(),
      derived: z.boolean(),
    }),
  ),
  count: z.number().int(),
});
export const notePaletteResponse = z.object({
  topicid: z.string(),
  palette: z.array(z.object({ colorIndex: z.number().int(), baseColor: z.string(), displayColor: z.string() })),
  count: z.number().int(),
  source: z.string(),
  fillIndexSemantics: z.record(z.string(), z.string()),
});
export const studySetOpenResponse = z.object({
  accepted: z.boolean(),
  topicid: z.string(),
  bookmd5: z.string().nullable(),
  tempOpen: z.boolean(),
});

const pageBox = (name: string) =>
  z.object({
    x: z.number().finite().min(0, `${name}.x must be ≥ 0`),
    y: z.number().finite().min(0, `${name}.y must be ≥ 0`),
    width: z.number().finite().positive(`${name}.width must be > 0`).max(14_400),
    height: z.number().finite().positive(`${name}.height must be > 0`).max(14_400),
  });
/** POST /study-sets/{id}/notes's body (the client's NewCard is its z.input). */
export const createNoteRequest = z.object({
  parentNoteId: noteId.optional(),
  title: z.string().max(2000, 'title: at most 2000 characters').optional(),
  text: z.string().max(100_000, 'text: at most 100000 characters').optional(),
  excerpt: z
    .object({
      bookmd5: bookmd5Param,
      page: pageNumber.pipe(z.number()),
      text: z.string().min(1, 'excerpt.text must not be empty').max(5000, 'excerpt.text: at most 5000 characters'),
      // PDF points, top-left origin: anchors the card to exactly this instead of the text match.
      rect: pageBox('excerpt.rect').optional(),
      // The reader's selection box: where on the page the text is (it picks among several places; else the anchor).
      near: pageBox('excerpt.near').optional(),
    })
    .optional(),
  colorIndex: colorIndex.optional(),
  fillIndex: fillIndex.optional(),
});
const batchCard = createNoteRequest.extend({
  parentIndex: z.number().int('parentIndex is an integer').min(0, 'parentIndex is ≥ 0').optional(),
});
const createNotesBody = createNoteRequest.extend({
  cards: z
    .array(batchCard)
    .min(1, 'cards must not be empty')
    .max(MAX_BATCH_CARDS, `at most ${MAX_BATCH_CARDS} cards per call: split the batch`)
    .optional(),
});
type CreateNotesBody = z.output<typeof createNotesBody>;

/** The batch a body asks for: `cards`, or the single card as a batch of one (the dry-run previews both alike). */
function batchOf(body: CreateNotesBody): BatchCardInput[] {
  if (!body.cards) return [body];
  const single = (['parentNoteId', 'title', 'text', 'excerpt', 'colorIndex', 'fillIndex'] as const).filter(
    (k) => body[k] !== undefined,
  );
  if (single.length)
    throw invalidInput(
      `Send either cards: [...] or one card's fields, not both (${single.join(', ')} given beside cards). Nothing was changed.`,
      { fields: single },
    );
  body.cards.forEach((c, index) => {
    if (!c.excerpt) return;
    try {
      refuseVirtual(c.excerpt.page);
    } catch (e) {
      throw new BridgeError(
        (e as BridgeError).code,
        (e as BridgeError).status,
        `cards[${index}]: ${(e as Error).message}`,
        { ...(e as BridgeError).details, index },
      );
    }
  });
  return body.cards;
}

/** Routes: study-set reads (tree, sub-maps, notebooks, hashtags, note-palette), open, delete and card creation. */
export const studySetCardRoutes = [
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/notes',
    summary:
      "Creates a card under parentNoteId (default the set's root card) from title, text and/or excerpt {bookmd5, page, text, rect?, near?}; an excerpt is anchored to its rectangle on the page (excerpt.rect in PDF points, top-left, is stored as given; else the text is matched on excerpt.page, glyph-true, one rectangle per line; excerpt.near, a selection's box, picks the place on that page, and is the anchor with warning EXCERPT_SELECTION_BOX when the text is not found there; warnings EXCERPT_NOT_ANCHORED when not found; on several pages: anchored on excerpt.page with ambiguous, alsoOn and warning EXCERPT_AMBIGUOUS, and 422 AMBIGUOUS_EXCERPT when it is not on excerpt.page but on several others). cards: [...] (≤ 200, parentIndex = an earlier card of the batch) creates a whole tree in one write and one undo step. True dry-run. Verify persisted:true.",
    premium: true,
    confirm: 'body',
    dryRun: true,
    params: setParams,
    body: createNotesBody,
    // 200 cards with their texts: up to the MCP message budget.
    jsonLimitBytes: 4 * 1024 * 1024,
    response: noteCreateRouteResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { title: 'Key idea', text: 'A short explanation.' } },
    preview: async ({ params, body, services }) => {
      if (!body.cards && body.excerpt) refuseVirtual(body.excerpt.page);
      return previewBatch(await planBatch(services, params.id, batchOf(body), !!body.cards));
    },
    handler: async ({ params, body, services, actor }) => {
      if (!body.cards) {
        if (body.excerpt) refuseVirtual(body.excerpt.page);
        return createCard(services, { topicid: params.id, ...body, actor });
      }
      return writeBatch(services, params.id, await planBatch(services, params.id, batchOf(body)), actor);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/tree',
    summary:
      'The card tree as a flat pre-order nodes[] (parent, depth = sub-map nesting, level, childCount, subMapId, title cut at 64); root=<noteid> reads that sub-tree.',
    params: setParams,
    query: z.object({ root: noteId.optional() }),
    response: treeResponse,
    sameUntilWrite: true,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, query, services }) => readTree(services.store, params.id, query.root),
  }),
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/sub-maps',
    summary:
      "Sub-maps in application order (the tree's pre-order): noteid, title, cardCount (cards below it), parentPath (titles from the root card to its parent), depth.",
    params: setParams,
    response: subMapsResponse,
    sameUntilWrite: true,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => readSubMaps(services.store, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/notebooks',
    summary:
      'Documents the set references: members (main first, then booklist) and documents its cards are anchored to, with isMain, isMember, anchoredCardCount, sourceState.',
    params: setParams,
    response: notebooksResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => readNotebooks(services.store, services.documents, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/hashtags',
    summary:
      "The set's hashtags by path: directCardCount (tagged exactly), cardCount (at the path or below), derived:true for ancestor paths that are not stored themselves.",
    params: setParams,
    response: setHashtagsResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => readSetHashtags(services.store, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/note-palette',
    summary:
      'The 16 card colours (colorIndex 0..15: baseColor, displayColor), source, and fillIndexSemantics (-1..2; 2 = no fill).',
    params: setParams,
    response: notePaletteResponse,
    example: { params: { id: EXAMPLE_UUID } },
    handler: async ({ params, services }) => readNotePalette(services.store, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/study-sets/{id}/open',
    summary:
      'Opens the set in the UI with bookmd5 (default its main document); a library document outside the set opens with tempOpen:true. Asynchronous: check GET /context.',
    params: setParams,
    body: z.object({ bookmd5: bookmd5Param.optional() }),
    response: studySetOpenResponse,
    example: { params: { id: EXAMPLE_UUID }, body: { bookmd5: EX_MD5 } },
    handler: async ({ params, body, services }) => openStudySet(services, params.id, body.bookmd5),
  }),
] satisfies RouteDecl[];
