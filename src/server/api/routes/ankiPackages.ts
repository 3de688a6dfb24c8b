import { z } from 'zod';
import { defaultLimits } from '../../config';
import { defineRoute, Reply, type RouteDecl } from '../http/routeTable';
import { importApkg, previewApkgImport } from '../../domain/decks/anki/ankiImport';
import { exportApkg } from '../../domain/decks/anki/ankiExport';
import { EXAMPLE_UUID, topicId } from './idParams';

const skipped = z.array(z.object({ kind: z.enum(['card', 'note', 'media']), ref: z.string(), reason: z.string() }));

export const deckImportResponse = z.object({
  deckId: z.string(),
  topicid: z.string().describe('The study set holding one card per Anki note'),
  notes: z.number().int(),
  created: z.number().int().describe('Notes new to the library'),
  updated: z.number().int().describe('Notes imported before (same guid), updated in place'),
  cards: z.number().int().describe('Review cards written (one per note)'),
  media: z.number().int().describe('Pictures stored as image parts'),
  presetId: z
    .string()
    .optional()
    .describe('The deck\'s options preset, "Anki: <options group>", from the package\'s deck options (dconf)'),
  skipped,
});

/** Routes: Anki packages (.apkg) in and out of review decks. */
export const ankiPackageRoutes = [
  defineRoute({
    method: 'POST',
    path: '/decks/import',
    summary:
      'Imports an Anki package (.apkg raw bytes; query filename): each note → a card of a new study set (first field the title, pictures as image parts, tags as hashtags with :: → /), its first card → a review card of a new deck named after the Anki deck, scheduling kept (FSRS memory state where Anki wrote one), the deck options (limits, steps, maximum interval, bury, leech, desired retention, FSRS weights, day start) into the preset "Anki: <group>". The same package again updates by note guid. Without confirm=1 → 422 whose details preview it. Newer-format-only packages → 422 APKG_FORMAT_UNSUPPORTED; damaged → 422 APKG_DAMAGED; over the upload limit → 413.',
    premium: true,
    confirm: 'query',
    dryRun: true,
    rawBody: { limitBytes: defaultLimits.uploadBytes, stream: true, mediaType: 'application/octet-stream' },
    query: z.object({ filename: z.string().min(1, 'filename is required').max(255) }),
    response: deckImportResponse,
    example: { query: { filename: 'Spanish.apkg' } },
    preview: async ({ query, bodyStream, services }) =>
      previewApkgImport(services, { body: bodyStream, filename: query.filename }),
    handler: async ({ query, bodyStream, services, actor }) =>
      importApkg(services, { body: bodyStream, filename: query.filename }, actor),
  }),
  defineRoute({
    method: 'GET',
    path: '/decks/{id}/apkg',
    summary:
      'The deck as an Anki package (.apkg, legacy collection.anki2 that Anki 2.1+ and AnkiDroid open): one Basic note per review card (Cloze when the question holds a cloze), excerpt regions and pictures as media, hashtags as tags, a stable guid per card (a second export updates in Anki), due, interval, reps, lapses and the FSRS memory state; the deck options as its options group (dconf).',
    params: z.object({ id: topicId }),
    example: { params: { id: EXAMPLE_UUID } },
    replyType: 'application/octet-stream',
    handler: async ({ params, services }) => {
      const out = await exportApkg(services, params.id);
      const ascii = out.filename.replace(/[^\x20-\x7e]/g, '_').replace(/"/g, '');
      return new Reply(out.bytes, 'application/octet-stream', 200, {
        'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(out.filename)}`,
        'X-Anki-Cards': String(out.cards),
        'X-Anki-Media': String(out.media),
      });
    },
  }),
] satisfies RouteDecl[];
