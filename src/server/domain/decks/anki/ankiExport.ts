import { strToU8, zipSync } from 'fflate';
import type { ExcerptRenderDeps } from '../../cards/cardImages';
import type { Decks } from '../../library/decks';
import { loadSqlite } from '../../../ground/store/sqlite';
import type { Store } from '../../../ground/store/store';
import { deckOptionsOf } from '../deckPresets';
import { readAnkiOrigins } from './ankiExportNotes';
import { ankiQueue, readExportCards, type ExportCard } from './ankiExportRead';
import { fieldsOf, mediaSet, type Media } from './ankiExportFields';
import { ANKI_SCHEMA, confJson, dconfJson, decksJson, modelsJson } from './ankiSchema';
import { scheduleToAnki } from './ankiSchedule';
import { fieldChecksum, hashtagToTag, htmlToText } from './ankiText';
import { createHash } from 'node:crypto';

/**
 * GET /decks/{id}/apkg: the deck as a legacy Anki package. Each review card
 * is one note: Basic (Front: the question, Back: the body, comments and
 * pictures) or, when the question holds a cloze, Cloze (Text with
 * `{{c1::…}}`, Back Extra). A card imported from Anki whose note still
 * reads as imported goes back as that note: its note type, its fields, and
 * one card per review card at its ordinal. Excerpt regions are drawn as the card renders
 * draw them and go in as media beside the stored pictures.
 */

export interface AnkiExportDeps extends ExcerptRenderDeps {
  store: Store;
  decks: Pick<Decks, 'get'>;
}

/** A stable Anki id (deck) from one of ours: 48 bits of its SHA-1, so a second export names the same deck. */
const stableId = (id: string) => parseInt(createHash('sha1').update(id).digest('hex').slice(0, 12), 16);

/** Day numbers count from crt: a day start early enough that no due date falls before it. */
function collectionCreated(cards: ExportCard[], now: Date): number {
  const earliest = Math.min(
    now.getTime(),
    ...cards.filter((c) => c.schedule.state === 2).map((c) => Date.parse(c.schedule.due)),
  );
  return Math.floor(earliest / 86_400_000) * 86_400;
}

export async function exportApkg(
  deps: AnkiExportDeps,
  deckId: string,
  now = new Date(),
): Promise<{ bytes: Buffer; filename: string; cards: number; media: number }> {
  const deck = deps.decks.get(deckId);
  const { options, name: presetName } = deckOptionsOf(deps.store, deckId);
  const cards = readExportCards(deps.store, deckId);
  const sourceIds = cards.map((c) => c.sourceNoteId);
  const { origins, models } = readAnkiOrigins(deps.store, sourceIds);
  const nowSec = Math.floor(now.getTime() / 1000);
  const crt = collectionCreated(cards, now);
  const ankiDeckId = stableId(deckId);
  const SQL = await loadSqlite();
  const db = new SQL.Database();
  const media = mediaSet();
  try {
    // A scratch database exported once at the end: no rollback journal to keep.
    db.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;');
    db.exec(ANKI_SCHEMA);
    db.run('INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)', [
      crt,
      now.getTime(),
      now.getTime(),
      confJson(ankiDeckId, cards.length + 1, options.dayStartHour),
      modelsJson(ankiDeckId, nowSec, [...models.values()]),
      decksJson(ankiDeckId, deck.title.replace(/::/g, ':'), nowSec),
      // A preset an import made ("Anki: <group>") goes back under the group's own name.
      dconfJson(nowSec, options, presetName.replace(/^Anki: /, '')),
      '{}',
    ]);
    db.exec('BEGIN');
    const cardIds = await writeCards(db, deps, cards, origins, media, { now, nowSec, crt, ankiDeckId });
    writeRevlog(db, deps.store, deckId, cardIds);
    db.exec('COMMIT');
    const collection = db.export();
    const mediaMap: Record<string, string> = {};
    media.names.forEach((n, i) => (mediaMap[String(i)] = n));
    const zip = zipSync({
      'collection.anki2': [collection, { level: 6 }],
      media: strToU8(JSON.stringify(mediaMap)),
      ...media.files,
    });
    const safe = deck.title.replace(/[^\p{L}\p{N} ._-]+/gu, '_').trim() || 'deck';
    return {
      bytes: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength),
      filename: `${safe}.apkg`,
      cards: cards.length,
      media: media.names.length,
    };
  } finally {
    db.close();
  }
}

/** One Anki note per review card (one per imported note, shared by its cards) and its card; returns our card id → Anki's. */
async function writeCards(
  db: import('sql.js').Database,
  deps: AnkiExportDeps,
  cards: ExportCard[],
  origins: ReturnType<typeof readAnkiOrigins>['origins'],
  media: Media,
  t: { now: Date; nowSec: number; crt: number; ankiDeckId: number },
): Promise<Map<string, number>> {
  const { now, nowSec, crt, ankiDeckId } = t;
  const noteStmt = db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, ?)');
  const cardStmt = db.prepare('INSERT INTO cards VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?, ?)');
  const baseId = now.getTime();
  let position = 0;
  const cardIds = new Map<string, number>();
  const noteOfGuid = new Map<string, number>();
  for (const [i, c] of cards.entries()) {
    cardIds.set(c.cardNoteId, baseId + i);
    const origin = origins.get(c.sourceNoteId);
    let ord: number;
    let nid = noteOfGuid.get(origin?.guid ?? '');
    if (origin) {
      ord = origin.ord;
      if (nid === undefined) {
        nid = baseId + i;
        noteOfGuid.set(origin.guid, nid);
        writeNote(noteStmt, nid, origin.guid, Number(origin.mid), nowSec, origin.hashtags, origin.fields);
        for (const m of origin.media) media.add(m.name, m.blob);
      }
    } else {
      const out = await fieldsOf(deps, c, media);
      ord = out.ord;
      nid = baseId + i;
      writeNote(noteStmt, nid, c.guid, out.mid, nowSec, c.hashtags, out.fields);
    }
    const s = scheduleToAnki(c.schedule, crt, c.schedule.state === 0 ? ++position : 0);
    cardStmt.run([
      baseId + i,
      nid,
      ankiDeckId,
      ord,
      nowSec,
      s.type,
      ankiQueue(c, s.queue, now),
      s.due,
      s.ivl,
      s.factor,
      s.reps,
      s.lapses,
      c.flag,
      s.data,
    ]);
  }
  noteStmt.free();
  cardStmt.free();
  return cardIds;
}

function writeNote(
  stmt: import('sql.js').Statement,
  id: number,
  guid: string,
  mid: number,
  nowSec: number,
  hashtags: readonly string[],
  fields: readonly string[],
): void {
  const tags = hashtags.map(hashtagToTag).filter(Boolean);
  stmt.run([
    id,
    guid,
    mid,
    nowSec,
    tags.length ? ` ${tags.join(' ')} ` : '',
    fields.join('\x1f'),
    htmlToText(fields[0] ?? ''),
    fieldChecksum(fields[0] ?? ''),
    '',
  ]);
}

const DAY_MS = 86_400_000;
/** Anki's revlog type of a grade by the state it found the card in: 0 learn, 1 review, 2 relearn. */
const REVLOG_TYPE = [0, 0, 1, 2];

/** The review log as Anki's revlog (one row per grade: ease 1–4, interval after and before, time taken), so Anki's FSRS can fit to it. */
function writeRevlog(
  db: import('sql.js').Database,
  store: Store,
  deckId: string,
  cardIds: ReadonlyMap<string, number>,
): void {
  const stmt = db.prepare('INSERT OR IGNORE INTO revlog VALUES (?, ?, -1, ?, ?, ?, 2500, ?, ?)');
  try {
    const rows = store.all<{
      card_note_id: string;
      rating: number;
      state_before: number;
      scheduled_days: number;
      reviewed_at: string;
      due_after: string;
      duration_ms: number | null;
    }>(
      'SELECT card_note_id, rating, state_before, scheduled_days, reviewed_at, due_after, duration_ms FROM review_logs WHERE deck_id = ? ORDER BY reviewed_at',
      [deckId],
    );
    const used = new Set<number>();
    for (const r of rows) {
      const cid = cardIds.get(r.card_note_id);
      if (cid === undefined) continue;
      let id = Date.parse(r.reviewed_at);
      while (used.has(id)) id++; // revlog ids are the review's epoch ms and must be unique
      used.add(id);
      const afterMs = Date.parse(r.due_after) - Date.parse(r.reviewed_at);
      // Anki: a positive interval counts days, a negative one seconds (learning steps).
      const ivl = afterMs >= DAY_MS ? Math.round(afterMs / DAY_MS) : -Math.max(1, Math.round(afterMs / 1000));
      stmt.run([
        id,
        cid,
        r.rating,
        ivl,
        Math.round(r.scheduled_days),
        Math.min(60_000, r.duration_ms ?? 0),
        REVLOG_TYPE[r.state_before] ?? 0,
      ]);
    }
  } finally {
    stmt.free();
  }
}
