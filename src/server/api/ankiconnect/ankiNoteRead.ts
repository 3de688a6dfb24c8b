import { inList, type Db } from '../../domain/cards/noteRows';
import type { SqlParam } from '../../ground/store/journal';
import { ankiIdOf, prefixRange, uuidPrefixOf } from './ankiIds';
import { clozeText, hashtagToTag, MODELS, textToHtml, type ModelName } from './ankiFields';
import { madeModelsById, type MadeModel } from './ankiModels';

/**
 * The notes AnkiConnect sees: the study-set cards that review cards of a
 * visible deck read (an Anki note is a card of a study set, its Anki card the
 * deck's review card; a note of several Anki cards is reviewed on child
 * cards, each read as its note's). A note of a stored type (anki_notes) is of
 * that type; one added before types were stored is Cloze when a review card
 * asks it with `{{cloze}}`, else Basic.
 */

export interface AnkiNote {
  noteid: string;
  topicid: string;
  title: string;
  body: string;
  modified: string;
  created: string;
  model: ModelName;
  /** The Cloze question (`{{cloze}}` where the deletions are). */
  question: string | null;
  decks: Array<{ deckId: string; title: string; cardNoteId: string }>;
  hashtags: string[];
  /** Media file names of the image parts a client stored, by field. */
  images: Array<{ field: string; name: string }>;
  /** A note of a type made by createModel: that type and its fields' HTML as stored. */
  made?: { model: MadeModel; values: string[] };
}

interface CandidateRow {
  noteid: string;
  topicid: string;
  title: string;
  modified_at: string;
  created_at: string;
  deck_id: string;
  deck_title: string;
  card_note_id: string;
  question: string | null;
}

/**
 * The note a review card's card belongs to: a child card made for one of a
 * note's several Anki cards (anki_cards) answers for that note.
 */
export const OWNER_NOTE = `coalesce((SELECT an.noteid FROM anki_cards ac JOIN anki_notes an ON an.guid = ac.guid
  WHERE ac.noteid = c.source_note_id LIMIT 1), c.source_note_id)`;

/** The child cards of the notes that have several Anki cards, with the notes. */
export function withChildCards(db: Db, noteIds: readonly string[]): string[] {
  const out = [...noteIds];
  for (let i = 0; i < noteIds.length; i += 500) {
    const chunk = noteIds.slice(i, i + 500) as SqlParam[];
    for (const r of db.all<{ child: string }>(
      `SELECT ac.noteid AS child FROM anki_notes an JOIN anki_cards ac ON ac.guid = an.guid
       WHERE an.noteid IN ${inList(chunk.length)} AND ac.noteid <> an.noteid`,
      chunk,
    ))
      out.push(r.child);
  }
  return out;
}

const CANDIDATES = `
SELECT n.noteid, n.topicid, n.title, n.modified_at, n.created_at, c.deck_id, d.title AS deck_title, c.card_note_id, c.question
FROM deck_cards c
JOIN topics d ON d.topicid = c.deck_id AND d.kind = 'deck' AND d.hidden = 0
JOIN notes n ON n.noteid = ${OWNER_NOTE} AND n.hidden = 0
JOIN topics s ON s.topicid = n.topicid AND s.hidden = 0 AND s.kind = 'studyset'`;

const isCloze = (q: string | null) => q !== null && /\{\{\s*cloze\s*\}\}/i.test(q);

/** Notes by their ids (all of them when `noteIds` is undefined), in creation order of their review cards. */
export function readAnkiNotes(db: Db, noteIds?: readonly string[]): AnkiNote[] {
  const rows: CandidateRow[] = [];
  if (noteIds === undefined) rows.push(...db.all<CandidateRow>(`${CANDIDATES} ORDER BY c.created_at, c.rowid`));
  else {
    const wanted = new Set(noteIds);
    const sources = withChildCards(db, noteIds);
    for (let i = 0; i < sources.length; i += 500) {
      const chunk = sources.slice(i, i + 500) as SqlParam[];
      rows.push(
        ...db
          .all<CandidateRow>(
            `${CANDIDATES} WHERE c.source_note_id IN ${inList(chunk.length)} ORDER BY c.created_at, c.rowid`,
            chunk,
          )
          .filter((r) => wanted.has(r.noteid)),
      );
    }
  }
  const byId = new Map<string, AnkiNote>();
  for (const r of rows) {
    let note = byId.get(r.noteid);
    if (!note) {
      note = {
        noteid: r.noteid,
        topicid: r.topicid,
        title: r.title,
        body: '',
        modified: r.modified_at,
        created: r.created_at,
        model: 'Basic',
        question: null,
        decks: [],
        hashtags: [],
        images: [],
      };
      byId.set(r.noteid, note);
    }
    note.decks.push({ deckId: r.deck_id, title: r.deck_title, cardNoteId: r.card_note_id });
    if (isCloze(r.question) && note.model === 'Basic') [note.model, note.question] = ['Cloze', r.question];
  }
  const ids = [...byId.keys()];
  const made = ids.length ? madeModelsById(db) : new Map<string, MadeModel>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500) as SqlParam[];
    const list = inList(chunk.length);
    for (const t of db.all<{ noteid: string; text: string }>(
      `SELECT noteid, text FROM note_texts WHERE idx = 0 AND noteid IN ${list}`,
      chunk,
    ))
      byId.get(t.noteid)!.body = t.text;
    for (const h of db.all<{ noteid: string; path: string }>(
      `SELECT noteid, path FROM note_hashtags WHERE noteid IN ${list} ORDER BY rowid`,
      chunk,
    ))
      byId.get(h.noteid)!.hashtags.push(h.path);
    for (const p of db.all<{ noteid: string; data: string | null }>(
      `SELECT noteid, data FROM note_parts WHERE kind = 'image' AND noteid IN ${list} ORDER BY idx`,
      chunk,
    )) {
      const media = mediaOf(p.data);
      if (media) byId.get(p.noteid)!.images.push(media);
    }
    readMade(db, chunk, byId, made);
  }
  return [...byId.values()];
}

/** The made type and stored fields of those of the notes that have them (`made`: the made types, by id). */
function readMade(db: Db, chunk: SqlParam[], byId: Map<string, AnkiNote>, made: Map<string, MadeModel>): void {
  if (!made.size) return;
  const mids = [...made.keys()];
  const rows = db.all<{ noteid: string; fields: string; mid: string }>(
    `SELECT noteid, fields, mid FROM anki_notes
     WHERE noteid IN ${inList(chunk.length)} AND fields IS NOT NULL AND mid IN ${inList(mids.length)}`,
    [...chunk, ...mids],
  );
  for (const r of rows) {
    const model = made.get(r.mid)!;
    const values = JSON.parse(r.fields) as string[];
    const note = byId.get(r.noteid)!;
    note.made = { model, values: model.fields.map((_f, i) => values[i] ?? '') };
    note.model = model.cloze ? 'Cloze' : 'Basic';
  }
}

/** The client's media name and field an image part came from (data JSON), if it came from one. */
export function mediaOf(data: string | null): { field: string; name: string } | undefined {
  if (!data) return undefined;
  try {
    const d = JSON.parse(data) as { ankiMedia?: unknown; ankiField?: unknown };
    return typeof d.ankiMedia === 'string'
      ? { name: d.ankiMedia, field: typeof d.ankiField === 'string' ? d.ankiField : '' }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Our note ids for AnkiConnect note ids (unknown ones left out). */
export function noteIdsFor(db: Db, ids: readonly unknown[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const id of ids) {
    const prefix = uuidPrefixOf(id);
    if (!prefix) continue;
    const row = db.get<{ noteid: string }>(
      'SELECT noteid FROM notes WHERE noteid >= ? AND noteid < ? AND hidden = 0 ORDER BY created_at LIMIT 1',
      prefixRange(prefix),
    );
    if (row) out.set(id as number, row.noteid);
  }
  return out;
}

/** The note type's name and field names of a note. */
export const noteModel = (note: AnkiNote): { name: string; fields: readonly string[] } =>
  note.made
    ? { name: note.made.model.name, fields: note.made.model.fields }
    : { name: note.model, fields: MODELS[note.model] };

/** The fields of a note as a client reads them (HTML), in the model's order. */
export function fieldValues(note: AnkiNote): Record<string, string> {
  if (note.made) return Object.fromEntries(note.made.model.fields.map((f, i) => [f, note.made!.values[i]]));
  const [first, second] = MODELS[note.model];
  const firstText = note.model === 'Cloze' && note.question ? clozeText(note.title, note.question) : note.title;
  const withImages = (field: string, text: string) =>
    textToHtml(text) +
    note.images
      .filter((i) => i.field === field)
      .map((i) => `<img src="${i.name.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`)
      .join('');
  return { [first]: withImages(first, firstText), [second]: withImages(second, note.body) };
}

/** notesInfo's entry of one note. */
export function noteInfo(note: AnkiNote) {
  const values = fieldValues(note);
  const model = noteModel(note);
  return {
    noteId: ankiIdOf(note.noteid)!,
    profile: 'Study Bridge',
    modelName: model.name,
    tags: note.hashtags.map(hashtagToTag),
    fields: Object.fromEntries(model.fields.map((f, order) => [f, { value: values[f], order }])),
    mod: Math.floor(Date.parse(note.modified) / 1000),
    cards: note.decks.map((d) => ankiIdOf(d.cardNoteId)).filter((x): x is number => x !== undefined),
  };
}
