import type { Database } from 'sql.js';
import { queryAll } from '../../../ground/store/sqlite';
import { protoFields } from './ankiNewFormat';

/**
 * Note types and decks of a collection at schema 15+ (what collection.anki21b
 * holds): they live in their own tables (notetypes, fields, decks) instead of
 * the col row's JSON. A note type's kind (1 = cloze) is field 1 of its
 * protobuf config; deck names separate levels with \x1f where JSON used `::`.
 */

/** A note type: its fields in order, and whether it is a cloze type. */
export interface AnkiModel {
  id: string;
  name: string;
  cloze: boolean;
  fields: string[];
}

export const hasNotetypeTables = (db: Database) =>
  queryAll<{ n: number }>(
    db,
    "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('notetypes', 'fields', 'decks')",
  )[0]?.n === 3;

export function notetypesOf(db: Database): Map<string, AnkiModel> {
  const fields = new Map<string, string[]>();
  for (const f of queryAll<{ ntid: number | string; name: string }>(
    db,
    'SELECT ntid, name FROM fields ORDER BY ntid, ord',
  )) {
    const list = fields.get(String(f.ntid));
    if (list) list.push(String(f.name));
    else fields.set(String(f.ntid), [String(f.name)]);
  }
  const models = new Map<string, AnkiModel>();
  for (const t of queryAll<{ id: number | string; name: string; config: Uint8Array | null }>(
    db,
    'SELECT id, name, config FROM notetypes',
  )) {
    const kind = t.config ? protoFields(t.config).get(1)?.[0] : 0;
    models.set(String(t.id), {
      id: String(t.id),
      name: String(t.name),
      cloze: kind === 1,
      fields: fields.get(String(t.id)) ?? [],
    });
  }
  return models;
}

export function decksOf(db: Database): Map<string, string> {
  return new Map(
    queryAll<{ id: number | string; name: string }>(db, 'SELECT id, name FROM decks').map((d) => [
      String(d.id),
      String(d.name).replace(/\x1f/g, '::'),
    ]),
  );
}
