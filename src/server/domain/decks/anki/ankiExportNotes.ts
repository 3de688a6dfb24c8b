import type { Db } from '../../cards/noteRows';
import type { AnkiModel } from './ankiCollection';
import { importedTextHash } from './ankiImportCards';
import { allForIds } from './sqlBatches';

/**
 * Which review cards of an export go back as the Anki notes they came from:
 * a card made from an imported Anki card (anki_cards) whose note still has
 * its type and fields stored and still reads as imported (title and body
 * unchanged). Those share one note per guid with its own type, fields and
 * card ordinals; the rest go out as the exporter's own Basic or Cloze notes.
 */

export interface AnkiOrigin {
  guid: string;
  ord: number;
  mid: string;
  fields: string[];
  /** The hashtags of the note's card, the note's tags. */
  hashtags: string[];
  /** The pictures the fields name, under the names the fields use. */
  media: Array<{ name: string; blob: Uint8Array }>;
}

export function readAnkiOrigins(
  db: Db,
  sourceIds: readonly string[],
): { origins: Map<string, AnkiOrigin>; models: Map<string, AnkiModel> } {
  const rows = allForIds<{
    source: string;
    guid: string;
    ord: number;
    noteid: string;
    mid: string | null;
    fields: string | null;
    text_hash: string | null;
    title: string;
    body: string | null;
  }>(
    db,
    `SELECT c.noteid AS source, c.guid, c.ord, a.noteid, a.mid, a.fields, a.text_hash, n.title,
            (SELECT text FROM note_texts t WHERE t.noteid = a.noteid AND t.idx = 0) AS body
     FROM anki_cards c JOIN anki_notes a ON a.guid = c.guid JOIN notes n ON n.noteid = a.noteid AND n.hidden = 0
     WHERE c.noteid IN $IN`,
    [...new Set(sourceIds)],
  );
  const kept = rows.filter((r) => r.mid && r.fields && r.text_hash === importedTextHash(r.title ?? '', r.body ?? ''));
  const models = new Map<string, AnkiModel>();
  for (const m of allForIds<{ mid: string; model: string }>(db, 'SELECT mid, model FROM anki_models WHERE mid IN $IN', [
    ...new Set(kept.map((r) => r.mid!)),
  ]))
    models.set(m.mid, JSON.parse(m.model) as AnkiModel);
  const tags = new Map<string, string[]>();
  for (const t of allForIds<{ noteid: string; path: string }>(
    db,
    'SELECT noteid, path FROM note_hashtags WHERE noteid IN $IN ORDER BY path',
    [...new Set(kept.map((r) => r.noteid))],
  ))
    tags.set(t.noteid, [...(tags.get(t.noteid) ?? []), t.path]);
  const media = new Map<string, Array<{ name: string; blob: Uint8Array }>>();
  for (const p of allForIds<{ noteid: string; name: string; blob: Uint8Array }>(
    db,
    `SELECT noteid, json_extract(data, '$.ankiMedia') AS name, blob FROM note_parts
     WHERE noteid IN $IN AND kind = 'image' AND blob IS NOT NULL AND json_extract(data, '$.ankiMedia') IS NOT NULL`,
    [...new Set(kept.map((r) => r.noteid))],
  ))
    media.set(p.noteid, [...(media.get(p.noteid) ?? []), { name: String(p.name), blob: p.blob }]);
  const origins = new Map<string, AnkiOrigin>();
  for (const r of kept) {
    if (!models.has(r.mid!)) continue;
    origins.set(r.source, {
      guid: r.guid,
      ord: Number(r.ord),
      mid: r.mid!,
      fields: JSON.parse(r.fields!) as string[],
      hashtags: tags.get(r.noteid) ?? [],
      media: media.get(r.noteid) ?? [],
    });
  }
  return { origins, models };
}
