import type { Db } from '../../cards/noteRows';
import type { AnkiModel } from './ankiCollection';
import { importedTextHash } from './ankiImportCards';
import { renderAnkiCard } from './ankiCardFace';
import { hashtagToTag } from './ankiText';

/**
 * The HTML Anki would show for the card a review card reads, when that card
 * came from an imported Anki card: its note's fields through its template.
 * Only while the card still reads as imported (the note's title and body as
 * the import wrote them, and the card not edited since); an edited card
 * shows its own text. Not sanitised here: reviewFaces.ts sanitises every face.
 */

export interface AnkiFaceHtml {
  question: string;
  /** What the back adds: the answer after Anki's `<hr id=answer>`. */
  answer: string;
}

const ANSWER_RULE = /<hr\b[^>]*\bid\s*=\s*["']?answer["']?[^>]*>/i;

interface Origin {
  ord: number;
  parent: string;
  mid: string | null;
  fields: string | null;
  text_hash: string | null;
  imported_at: string;
  title: string | null;
  body: string | null;
  modified: string | null;
}

export function ankiFaceHtml(db: Db, noteId: string): AnkiFaceHtml | undefined {
  const o = db.get<Origin>(
    `SELECT c.ord, a.noteid AS parent, a.mid, a.fields, a.text_hash, a.imported_at, n.title,
            (SELECT text FROM note_texts t WHERE t.noteid = a.noteid AND t.idx = 0) AS body,
            (SELECT modified_at FROM notes m WHERE m.noteid = c.noteid) AS modified
     FROM anki_cards c JOIN anki_notes a ON a.guid = c.guid JOIN notes n ON n.noteid = a.noteid
     WHERE c.noteid = ? LIMIT 1`,
    [noteId],
  );
  if (!o?.mid || !o.fields || o.text_hash !== importedTextHash(o.title ?? '', o.body ?? '')) return undefined;
  // A child card (one of a note's several) edited after the import reads its own text.
  if (o.parent !== noteId && (o.modified ?? '') > o.imported_at) return undefined;
  const modelRow = db.get<{ model: string }>('SELECT model FROM anki_models WHERE mid = ?', [o.mid]);
  if (!modelRow) return undefined;
  const model = JSON.parse(modelRow.model) as AnkiModel;
  const tags = db
    .all<{ path: string }>('SELECT path FROM note_hashtags WHERE noteid = ? ORDER BY path', [o.parent])
    .map((t) => hashtagToTag(t.path));
  const fields = JSON.parse(o.fields) as string[];
  const faces = renderAnkiCard(model, { fieldNames: model.fields, fields, tags, modelName: model.name }, Number(o.ord));
  if (!faces) return undefined;
  const { question, answer } = faces;
  // Anki's answers repeat the front above <hr id=answer>; review shows the question already.
  const parts = answer.split(ANSWER_RULE);
  let back = parts[parts.length - 1];
  if (parts.length === 1 && back.startsWith(question)) back = back.slice(question.length);
  return { question, answer: back };
}

/** A picture card HTML names by its Anki media name, and the image part that holds it. */
export interface FacePicture {
  name: string;
  /** GET /notes/{noteId}/content/{contentId} gives its bytes. */
  noteId: string;
  contentId: string;
}

const IMG_SRC = /<img\b[^>]*?\bsrc="([^"]*)"/gi;

/** The pictures the (sanitised) sides name, as image parts of the card or of its note (a child card's parent). */
export function facePictures(db: Db, noteId: string, htmls: readonly string[]): FacePicture[] {
  const names = new Set<string>();
  for (const html of htmls)
    for (const m of html.matchAll(IMG_SRC)) if (!m[1].startsWith('data:')) names.add(decodeAttr(m[1]));
  if (!names.size) return [];
  const rows = db.all<{ name: string; noteid: string; content_id: string }>(
    `SELECT json_extract(data, '$.ankiMedia') AS name, noteid, content_id FROM note_parts
     WHERE kind = 'image' AND json_extract(data, '$.ankiMedia') IS NOT NULL
       AND noteid IN (?, (SELECT parent_id FROM notes WHERE noteid = ?)) ORDER BY noteid = ? DESC, idx`,
    [noteId, noteId, noteId],
  );
  const out = new Map<string, FacePicture>();
  for (const r of rows)
    if (names.has(r.name) && !out.has(r.name))
      out.set(r.name, { name: r.name, noteId: r.noteid, contentId: r.content_id });
  return [...out.values()];
}

/** An attribute value as sanitize-html writes it back to its text. */
const decodeAttr = (v: string) =>
  v
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
