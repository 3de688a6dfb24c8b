import type { Db } from '../cards/noteRows';
import { ALIVE_SQL } from './deckCardRows';

/**
 * What the faces of many review cards read, each kind in one statement over
 * all of them (ids passed as one JSON array, so each is one prepared
 * statement whatever the count): /due shows up to hundreds of cards, and a
 * few point queries per card were most of its time. One read of `notes`
 * answers where a card points (reference_of), whether it is visible in a
 * visible study set (as aliveIds), and its title and page.
 */

interface NoteInfo {
  ref: string | null;
  alive: boolean;
  title: string;
  source_page: number | null;
}

export interface NoteText {
  idx: number;
  text: string;
  excerpt: number;
}

/** The reads one card's faces need (reviewFaces.ts): its note, its texts, and whether it came from Anki. */
export interface FaceReads {
  note?: { title: string; source_page: number | null };
  texts: NoteText[];
  /** Whether an imported Anki card reads as this note (else its template is not looked for). */
  anki: boolean;
  /** content_part cards: the part's kind, or null when the part is gone. */
  partKind?: string | null;
}

/** The ids as one JSON array parameter, for `IN (SELECT value FROM json_each(?))`. */
const IDS = 'SELECT value FROM json_each(?)';

/** Notes by id, read in batches and kept. */
function noteReader(db: Db) {
  const known = new Map<string, NoteInfo | undefined>();
  const read = (ids: Iterable<string>) => {
    const missing = [...new Set(ids)].filter((id) => !known.has(id));
    if (!missing.length) return;
    for (const id of missing) known.set(id, undefined);
    for (const r of db.all<{ noteid: string; ref: string | null; alive: number; title: string; page: number | null }>(
      `SELECT n.noteid, n.reference_of AS ref, n.title, n.source_page AS page,
              coalesce(${ALIVE_SQL}, 0) AS alive
       FROM notes n LEFT JOIN topics t ON t.topicid = n.topicid WHERE n.noteid IN (${IDS})`,
      [JSON.stringify(missing)],
    ))
      known.set(r.noteid, { ref: r.ref, alive: !!r.alive, title: r.title, source_page: r.page });
  };
  return { read, get: (id: string) => known.get(id) };
}

/**
 * For each source note: the card it reads (following `reference_of` as resolveNote does, one
 * statement per hop for all), whether both are alive (as aliveIds), and the faces' reads of it.
 */
export function readFaces(db: Db, rows: ReadonlyArray<{ source_note_id: string; question_content_id: string | null }>) {
  const notes = noteReader(db);
  const sources = rows.map((r) => r.source_note_id);
  const resolved = new Map(sources.map((id) => [id, id]));
  notes.read(sources);
  for (let hop = 0; hop < 16; hop++) {
    let moved = false;
    for (const [start, cur] of resolved) {
      const ref = notes.get(cur)?.ref;
      if (!ref || ref === cur) continue;
      resolved.set(start, ref);
      moved = true;
    }
    if (!moved) break;
    notes.read(resolved.values());
  }
  const alive = (id: string) => !!notes.get(id)?.alive && !!notes.get(resolved.get(id)!)?.alive;
  const shown = [...new Set(sources.filter(alive).map((id) => resolved.get(id)!))];
  const texts = textsOf(db, shown);
  const ids = JSON.stringify(shown);
  const anki = new Set(
    db
      .all<{ noteid: string }>(`SELECT DISTINCT noteid FROM anki_cards WHERE noteid IN (${IDS})`, [ids])
      .map((r) => r.noteid),
  );
  const contentIds = [...new Set(rows.flatMap((r) => (r.question_content_id ? [r.question_content_id] : [])))];
  const parts = new Map(
    contentIds.length
      ? db
          .all<{ content_id: string; kind: string }>(
            `SELECT content_id, kind FROM note_parts WHERE content_id IN (${IDS})`,
            [JSON.stringify(contentIds)],
          )
          .map((r) => [r.content_id, r.kind])
      : [],
  );
  return {
    resolved: (sourceId: string) => resolved.get(sourceId)!,
    alive,
    of: (noteId: string, contentId: string | null): FaceReads => {
      const n = notes.get(noteId);
      return {
        note: n && { title: n.title, source_page: n.source_page },
        texts: texts.get(noteId) ?? [],
        anki: anki.has(noteId),
        ...(contentId ? { partKind: parts.get(contentId) ?? null } : {}),
      };
    },
  };
}

/** The texts of `noteIds` by note, in order. */
function textsOf(db: Db, noteIds: readonly string[]) {
  const texts = new Map<string, NoteText[]>();
  for (const { noteid, ...t } of db.all<NoteText & { noteid: string }>(
    `SELECT noteid, idx, text, excerpt FROM note_texts WHERE noteid IN (${IDS}) ORDER BY noteid, idx`,
    [JSON.stringify(noteIds)],
  )) {
    const list = texts.get(noteid);
    if (list) list.push(t);
    else texts.set(noteid, [t]);
  }
  return texts;
}
