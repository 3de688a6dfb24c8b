import { z } from 'zod';
import { defineRoute, Reply, type RouteDecl } from '../http/routeTable';
import { readSetOutline } from '../../domain/mindmap/outlineTree';
import { toOpml } from '../../domain/mindmap/outlineOpml';
import { toMarkdown } from '../../domain/mindmap/outlineMarkdown';
import { MAX_OUTLINE_CARDS, MAX_OUTLINE_DEPTH, previewOutline, writeOutline } from '../../domain/mindmap/outlineImport';
import { OUTLINE_BUDGET_MS, planOutlineBounded } from '../../domain/mindmap/outlinePlanThread';
import { topicTitle } from './topicFields';
import { EXAMPLE_UUID, topicId } from './idParams';

/**
 * The body of an outline import. Measured: a 200-page manual (the corpus's
 * asymptote.pdf) with every paragraph a card, 1,456 cards, is 415 KB of
 * Markdown and 457 KB of OPML; 2 MiB leaves four times that, and 5,000 cards
 * of 400 characters each.
 */
export const OUTLINE_LIMIT_BYTES = 2 * 1024 * 1024;
const formats = z.enum(['opml', 'md'], { error: 'format must be opml or md' });

const importResponse = z.object({
  topicid: z.string(),
  title: z.string(),
  rootNoteId: z.string(),
  cards: z.number().int(),
  depth: z.number().int(),
  warnings: z.array(z.string()),
});

/** Routes: the card tree out as a mind-map outline (OPML 2.0, Markdown) and back in as a new set. */
export const outlineRoutes = [
  defineRoute({
    method: 'GET',
    path: '/study-sets/{id}/outline',
    summary:
      "The set's card tree as a mind-map outline: format=opml (OPML 2.0 for XMind, MindNode, Logseq: text = title, _note = texts, _page = an excerpt's page) or md (headings for six levels, then nested bullets; excerpts as > quote (p. N)). Reads back with POST /library/study-sets/import.",
    params: z.object({ id: topicId }),
    query: z.object({ format: formats.optional() }),
    example: { params: { id: EXAMPLE_UUID }, query: { format: 'opml' } },
    replyType: 'text/x-opml; charset=utf-8',
    handler: async ({ params, query, services }) => {
      const outline = readSetOutline(services.store, params.id);
      if (query.format === 'md') return new Reply(toMarkdown(outline), 'text/markdown; charset=utf-8');
      return new Reply(toOpml(outline), 'text/x-opml; charset=utf-8');
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/library/study-sets/import',
    summary: `Creates a new study set from a mind-map outline: format opml (OPML 2.0) or md (read by the result.md parser; bullets are cards too); a single top item becomes the root card, unless title is given (then a root card bearing title holds the outline). At most ${MAX_OUTLINE_CARDS} cards (422 TOO_MANY_CARDS), ${MAX_OUTLINE_DEPTH} levels; malformed OPML → 422 INVALID_OPML; a body over ${OUTLINE_LIMIT_BYTES / 1024 / 1024} MiB → 413 PAYLOAD_TOO_LARGE; a large outline is parsed on a worker thread and stopped after ${OUTLINE_BUDGET_MS / 1000} s (422 OUTLINE_TOO_COSTLY). True dry-run: wouldCreate, topTitles.`,
    premium: true,
    confirm: 'body',
    dryRun: true,
    jsonLimitBytes: OUTLINE_LIMIT_BYTES,
    body: z.object({
      format: formats,
      content: z.string({ error: 'content must be the outline text' }).min(1, 'content must not be empty'),
      title: topicTitle.optional(),
    }),
    response: importResponse,
    example: {
      body: { format: 'md', content: '# Linear algebra\n\n## Vectors\n\n- Dot product\n', title: 'Linear algebra' },
    },
    preview: async ({ body, services }) =>
      previewOutline(
        await planOutlineBounded(body.format, body.content, body.title, services.config.limits.outlineBudgetMs),
      ),
    handler: async ({ body, services, actor }) =>
      writeOutline(
        services.store,
        await planOutlineBounded(body.format, body.content, body.title, services.config.limits.outlineBudgetMs),
        actor,
      ),
  }),
] satisfies RouteDecl[];
