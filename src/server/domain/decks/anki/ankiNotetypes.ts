import type { Database } from 'sql.js';
import { queryAll } from '../../../ground/store/sqlite';
import { protoFields } from './ankiNewFormat';
import type { AnkiTemplate } from './ankiTemplate';

/**
 * Note types and decks of a collection at schema 15+ (what collection.anki21b
 * holds): they live in their own tables (notetypes, fields, decks) instead of
 * the col row's JSON. A note type's kind (1 = cloze) is field 1 of its
 * protobuf config; deck names separate levels with \x1f where JSON used `::`.
 */

/** A note type: its fields and card templates in order, whether it is a cloze type, and its styling. */
export interface AnkiModel {
  id: string;
  name: string;
  cloze: boolean;
  fields: string[];
  templates: AnkiTemplate[];
  css: string;
}

const utf8 = (v: number | Uint8Array | undefined) => (v instanceof Uint8Array ? new TextDecoder().decode(v) : '');

/** Templates of schema 15+: config field 1 is the question format, 2 the answer format. */
function templatesOf(db: Database): Map<string, AnkiTemplate[]> {
  const out = new Map<string, AnkiTemplate[]>();
  const has = queryAll<{ n: number }>(db, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'templates'")[0]?.n;
  if (!has) return out;
  for (const t of queryAll<{ ntid: number | string; ord: number; name: string; config: Uint8Array | null }>(
    db,
    'SELECT ntid, ord, name, config FROM templates ORDER BY ntid, ord',
  )) {
    const f = t.config ? protoFields(t.config) : new Map<number, Array<number | Uint8Array>>();
    const tmpl = { name: String(t.name), ord: Number(t.ord), qfmt: utf8(f.get(1)?.[0]), afmt: utf8(f.get(2)?.[0]) };
    const list = out.get(String(t.ntid));
    if (list) list.push(tmpl);
    else out.set(String(t.ntid), [tmpl]);
  }
  return out;
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
  const templates = templatesOf(db);
  const models = new Map<string, AnkiModel>();
  for (const t of queryAll<{ id: number | string; name: string; config: Uint8Array | null }>(
    db,
    'SELECT id, name, config FROM notetypes',
  )) {
    // Notetype config: field 1 the kind (1 = cloze), field 3 the CSS.
    const config = t.config ? protoFields(t.config) : new Map<number, Array<number | Uint8Array>>();
    models.set(String(t.id), {
      id: String(t.id),
      name: String(t.name),
      cloze: config.get(1)?.[0] === 1,
      fields: fields.get(String(t.id)) ?? [],
      templates: templates.get(String(t.id)) ?? [],
      css: utf8(config.get(3)?.[0]),
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
