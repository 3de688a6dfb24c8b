import { loadSqlite, queryAll, queryAllSteps } from '../../../ground/store/sqlite';
import { inSlices } from '../../../ground/store/writeSteps';
import { apkgDamaged } from './apkgZip';
import { deckConfigOf, type AnkiDeckConfig } from './ankiDeckConfig';
import { decksOf, hasNotetypeTables, notetypesOf, type AnkiModel } from './ankiNotetypes';
import { revlogOf, type AnkiRevlog } from './ankiRevlog';

/**
 * What an Anki collection (collection.anki2 / .anki21, schema 11) holds that
 * an import needs: note types (fields, cloze or not), decks, notes, cards
 * with their flags and the review log of each card. Read with sql.js from the inflated bytes,
 * its big tables in slices of the event loop (a 40,000-card package held it 0.8-3 s in one turn).
 */

export type { AnkiModel };

export interface AnkiNote {
  id: number;
  guid: string;
  mid: string;
  tags: string[];
  fields: string[];
}

/** The scheduling columns of an Anki card (cards table), read on import and written on export. */
export interface AnkiCardSchedule {
  type: number;
  queue: number;
  due: number;
  ivl: number;
  factor: number;
  reps: number;
  lapses: number;
  data: string;
}

export interface AnkiCard extends AnkiCardSchedule {
  id: number;
  nid: number;
  did: string;
  ord: number;
  /** Flag colour, 0 none, 1–7 (the low 3 bits of Anki's `flags`). */
  flags: number;
}

export interface AnkiCollection {
  /** Collection creation, epoch seconds: review due dates count days from it. */
  crt: number;
  models: Map<string, AnkiModel>;
  decks: Map<string, string>;
  notes: AnkiNote[];
  cards: AnkiCard[];
  /** Each card's graded reviews (revlog), oldest first, where the package has them. */
  revlog: Map<number, AnkiRevlog[]>;
  /** Each deck's options group (schema 11's dconf), by deck id; empty when the package keeps them elsewhere. */
  deckConfigs: Map<string, AnkiDeckConfig>;
}

const MODEL_CLOZE = 1;

export async function readCollection(bytes: Uint8Array): Promise<AnkiCollection> {
  const SQL = await loadSqlite();
  let db;
  try {
    db = new SQL.Database(bytes);
    db.exec('SELECT count(*) FROM sqlite_master');
  } catch (e) {
    db?.close();
    throw apkgDamaged(`its collection is not a readable SQLite database (${(e as Error).message})`);
  }
  try {
    // conf and dconf (options) are read when there: a col row without them still imports.
    const col = queryAll<{ crt: number; models: string; decks: string; conf?: string; dconf?: string }>(
      db,
      'SELECT * FROM col LIMIT 1',
    )[0];
    if (!col) throw apkgDamaged('its collection has no col row');
    // Schema 15+ (collection.anki21b) keeps note types and decks in tables; older ones in the col row's JSON.
    const newer = hasNotetypeTables(db);
    const models = newer ? notetypesOf(db) : modelsFromJson(col.models);
    const decks = newer ? decksOf(db) : decksFromJson(col.decks);
    const noteRows = await inSlices(
      queryAllSteps<{ id: number; guid: string; mid: number | string; tags: string; flds: string }>(
        db,
        'SELECT id, guid, mid, tags, flds FROM notes ORDER BY id',
      ),
    );
    const notes = noteRows.map((n): AnkiNote => ({
      id: n.id,
      guid: String(n.guid),
      mid: String(n.mid),
      tags: String(n.tags).split(/\s+/).filter(Boolean),
      fields: String(n.flds).split('\x1f'),
    }));
    const hasData =
      queryAll<{ name: string }>(db, "SELECT name FROM pragma_table_info('cards') WHERE name = 'data'").length > 0;
    const cardRows = await inSlices(
      queryAllSteps<AnkiCard & { did: number | string }>(
        db,
        `SELECT id, nid, did, ord, type, queue, due, ivl, factor, reps, lapses, flags, ${hasData ? 'data' : "''"} AS data FROM cards ORDER BY nid, ord`,
      ),
    );
    const cards = cardRows.map((c) => ({
      ...c,
      did: String(c.did),
      flags: Number(c.flags) & 7,
      data: String(c.data ?? ''),
    }));
    const deckConfigs = newer ? new Map<string, AnkiDeckConfig>() : deckConfigsOf(col, decks);
    return { crt: Number(col.crt) || 0, models, decks, notes, cards, revlog: await revlogOf(db), deckConfigs };
  } catch (e) {
    if ((e as { code?: string }).code === 'APKG_DAMAGED') throw e;
    throw apkgDamaged(`its collection does not have Anki's tables (${(e as Error).message})`);
  } finally {
    db.close();
  }
}

function modelsFromJson(json: string): Map<string, AnkiModel> {
  const models = new Map<string, AnkiModel>();
  for (const [id, m] of Object.entries(
    parseJson(json, 'models') as Record<
      string,
      {
        name?: string;
        type?: number;
        css?: string;
        flds?: Array<{ name: string; ord: number }>;
        tmpls?: Array<{ name?: string; ord: number; qfmt?: string; afmt?: string }>;
      }
    >,
  )) {
    const fields = [...(m.flds ?? [])].sort((a, b) => a.ord - b.ord).map((f) => String(f.name));
    const templates = [...(Array.isArray(m.tmpls) ? m.tmpls : [])]
      .sort((a, b) => a.ord - b.ord)
      .map((t) => ({
        name: String(t.name ?? ''),
        ord: Number(t.ord),
        qfmt: String(t.qfmt ?? ''),
        afmt: String(t.afmt ?? ''),
      }));
    models.set(String(id), {
      id: String(id),
      name: String(m.name ?? 'Note'),
      cloze: m.type === MODEL_CLOZE,
      fields,
      templates,
      css: String(m.css ?? ''),
    });
  }
  return models;
}

function decksFromJson(json: string): Map<string, string> {
  const decks = new Map<string, string>();
  for (const [id, d] of Object.entries(parseJson(json, 'decks') as Record<string, { name?: string }>))
    decks.set(String(id), String(d.name ?? 'Default'));
  return decks;
}

/** Options read leniently: a package whose dconf or conf is not JSON still imports, with the bridge's defaults. */
function deckConfigsOf(col: { decks: string; conf?: string; dconf?: string }, decks: Map<string, string>) {
  const lenient = (text: string) => {
    try {
      const v = JSON.parse(text) as unknown;
      return v && typeof v === 'object' ? (v as Record<string, never>) : {};
    } catch {
      return {};
    }
  };
  const deckRows = lenient(String(col.decks));
  const dconf = lenient(String(col.dconf ?? ''));
  const rollover = (lenient(String(col.conf ?? '')) as { rollover?: unknown }).rollover;
  const out = new Map<string, AnkiDeckConfig>();
  for (const id of decks.keys()) {
    const c = deckConfigOf(id, deckRows, dconf, rollover);
    if (c) out.set(id, c);
  }
  return out;
}

function parseJson(text: string, what: string): unknown {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object') return v;
  } catch {
    // refused below
  }
  throw apkgDamaged(`its collection's ${what} are not JSON`);
}
