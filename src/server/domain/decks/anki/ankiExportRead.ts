import { createHash } from 'node:crypto';
import { inList, type Db, type NoteRow } from '../../cards/noteRows';
import { aliveIds, resolveNote, type DeckCardRow } from '../deckCardRows';
import { parseSchedule, type StoredSchedule } from '../deckScheduling';

/**
 * What an export reads of a deck, in a few batched queries: each review card
 * with the card it resolves to (title, body, comments, hashtags, stored
 * pictures, excerpt anchor), its schedule, and its Anki guid (the one it
 * came in with, else one derived from the review card's id, so every export
 * of the same card carries the same guid).
 */

export interface ExportPicture {
  contentId: string;
  mimeType: string | null;
  blob: Uint8Array;
}

export interface ExportCard {
  cardNoteId: string;
  sourceNoteId: string;
  guid: string;
  title: string;
  question: string | null;
  questionContentId: string | null;
  body: string;
  comments: string[];
  hashtags: string[];
  pictures: ExportPicture[];
  /** The resolved card when it is an anchored excerpt (its region is drawn as a picture). */
  excerptNote: NoteRow | null;
  schedule: StoredSchedule;
  suspended: boolean;
  /** Buried until this instant (ISO), or null. */
  buriedUntil: string | null;
  /** Flag colour, 0 none, 1–7. */
  flag: number;
}

/** Anki's queue of an exported card: -1 suspended, -3 buried (by hand) while its day lasts, else its schedule's. */
export const ankiQueue = (c: ExportCard, scheduled: number, now: Date) =>
  c.suspended ? -1 : c.buriedUntil && Date.parse(c.buriedUntil) > now.getTime() ? -3 : scheduled;

/** A guid in Anki's style (base 91 digits) from a stable seed. */
export function derivedGuid(seed: string): string {
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~';
  let n = BigInt(`0x${createHash('sha1').update(`study-bridge:${seed}`).digest('hex').slice(0, 16)}`);
  let out = '';
  while (n > 0n) {
    out = chars[Number(n % 91n)] + out;
    n /= 91n;
  }
  return out || 'a';
}

function byNote<T extends { noteid: string }>(db: Db, select: string, ids: readonly string[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of db.all<T>(select.replace('$IN', inList(chunk.length)), chunk)) {
      const list = out.get(r.noteid);
      if (list) list.push(r);
      else out.set(r.noteid, [r]);
    }
  }
  return out;
}

type Row = DeckCardRow & { queue: string | null; buried_until: string | null; flag: number | null };

export function readExportCards(db: Db, deckId: string): ExportCard[] {
  const rows = db.all<Row>('SELECT * FROM deck_cards WHERE deck_id = ? ORDER BY due_at, created_at, rowid', [deckId]);
  const refs = new Set(
    db
      .all<{ noteid: string }>(
        'SELECT n.noteid FROM deck_cards c JOIN notes n ON n.noteid = c.source_note_id WHERE c.deck_id = ? AND n.reference_of IS NOT NULL',
        [deckId],
      )
      .map((r) => r.noteid),
  );
  const resolved = new Map(
    rows.map((r) => [
      r.source_note_id,
      refs.has(r.source_note_id) ? resolveNote(db, r.source_note_id) : r.source_note_id,
    ]),
  );
  const ids = [...new Set(resolved.values())];
  const alive = aliveIds(db, [...rows.map((r) => r.source_note_id), ...ids]);
  const notes = byNote<NoteRow>(db, 'SELECT * FROM notes WHERE noteid IN $IN', ids);
  const texts = byNote<{ noteid: string; idx: number; text: string }>(
    db,
    'SELECT noteid, idx, text FROM note_texts WHERE noteid IN $IN ORDER BY noteid, idx',
    ids,
  );
  const tags = byNote<{ noteid: string; path: string }>(
    db,
    'SELECT noteid, path FROM note_hashtags WHERE noteid IN $IN ORDER BY noteid, path',
    ids,
  );
  const parts = byNote<{ noteid: string; content_id: string; mime_type: string | null; blob: Uint8Array }>(
    db,
    `SELECT noteid, content_id, mime_type, blob FROM note_parts WHERE noteid IN $IN AND kind = 'image' AND blob IS NOT NULL ORDER BY noteid, idx, content_id`,
    ids,
  );
  const guids = byNote<{ noteid: string; guid: string }>(
    db,
    'SELECT noteid, guid FROM anki_notes WHERE noteid IN $IN',
    ids,
  );
  return rows.map((r): ExportCard => {
    const id = resolved.get(r.source_note_id)!;
    const live = alive.has(r.source_note_id) && alive.has(id);
    const note = live ? notes.get(id)?.[0] : undefined;
    const t = live ? (texts.get(id) ?? []) : [];
    return {
      cardNoteId: r.card_note_id,
      sourceNoteId: r.source_note_id,
      guid: guids.get(id)?.[0]?.guid ?? derivedGuid(r.card_note_id),
      title: note?.title || r.title || '',
      question: r.question,
      questionContentId: r.question_content_id,
      body: t.find((x) => x.idx === 0)?.text ?? '',
      comments: t.filter((x) => x.idx > 0).map((x) => x.text),
      hashtags: live ? (tags.get(id) ?? []).map((x) => x.path) : [],
      pictures: live
        ? (parts.get(id) ?? []).map((p) => ({ contentId: p.content_id, mimeType: p.mime_type, blob: p.blob }))
        : [],
      excerptNote: note && note.source_bookmd5 && note.source_rect ? note : null,
      schedule: parseSchedule(r.fsrs, r.due_at ?? r.created_at),
      suspended: r.queue === 'suspended',
      buriedUntil: r.queue === 'buried' ? (r.buried_until ?? null) : null,
      flag: r.flag ?? 0,
    };
  });
}
