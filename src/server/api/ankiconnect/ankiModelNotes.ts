import { importedTextHash } from '../../domain/decks/anki/ankiImportCards';
import { guidOf } from '../../domain/decks/anki/ankiNoteCards';
import type { WriteTx } from '../../ground/store/store';
import { AnkiError } from './ankiError';
import { clozeParts, htmlToText } from './ankiFields';
import type { MadeModel, ResolvedModel } from './ankiModels';

/**
 * A note of a note type made by createModel, as a card: its first field the
 * title (a cloze type's deletions shown, its question with `{{cloze}}` where
 * they are), the second field the body and later fields after it under their
 * names, as an imported note's fields are laid out. The fields' HTML is kept
 * as the client sent it (anki_notes), so notesInfo gives each field back.
 * Basic and Cloze are such types too (ankiModels.ts).
 */

/** The note's field values in the type's order; a field the type lacks is refused, as for Basic and Cloze. */
export function madeFieldValues(
  model: ResolvedModel,
  given: Record<string, unknown>,
  current: readonly string[] = [],
): string[] {
  const values = model.fields.map((_f, i) => current[i] ?? '');
  for (const [raw, value] of Object.entries(given ?? {})) {
    // Older Anki called the Cloze type's second field "Extra": taken on input.
    const extra = raw === 'Extra' && !model.fields.includes(raw) && model.fields.includes('Back Extra');
    const i = model.fields.indexOf(extra ? 'Back Extra' : raw);
    if (i < 0)
      throw new AnkiError(
        `field ${raw} does not exist in note type ${model.name} (its fields: ${model.fields.join(', ')})`,
      );
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a field is any JSON value, coerced as Basic's are
    values[i] = typeof value === 'string' ? value : String(value ?? '');
  }
  return values;
}

/** The card a made type's note becomes: title, body and, for a cloze type, the review question. */
export function madeCardText(
  model: ResolvedModel,
  values: readonly string[],
): { firstText: string; title: string; body: string; question: string | null } {
  const texts = values.map(htmlToText);
  const firstText = texts[0] ?? '';
  let title = firstText;
  let question: string | null = null;
  if (model.kind === 'Cloze') {
    const cloze = clozeParts(firstText);
    if (!cloze.deletions)
      throw new AnkiError(
        `cannot create note because it has no cloze deletions: mark them in ${model.fields[0]} as {{c1::…}}`,
      );
    [title, question] = [cloze.title, cloze.question];
  }
  const rest = texts
    .slice(1)
    .map((t, i) => (!t ? '' : i === 0 ? t : `${model.fields[i + 1]}: ${t}`))
    .filter(Boolean);
  return { firstText, title, body: rest.join('\n\n'), question };
}

/**
 * A note is kept as an imported note is (anki_notes: its type and fields), so
 * notesInfo reads its fields back, review renders them through the template
 * and an export gives it back with its note type while it reads as added.
 * Its cards are decks/anki/ankiNoteCards.ts's. Basic's and Cloze's type row is written
 * with their first note.
 */
export function writeMadeNote(
  tx: WriteTx,
  note: { noteid: string; topicid: string; deckId: string; title: string; body: string; now: string },
  made: { mid: string; fields: readonly string[] },
  model: MadeModel,
): void {
  tx.run(
    'INSERT OR REPLACE INTO anki_notes(guid, noteid, topicid, deck_id, imported_at, mid, fields, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [
      guidOf(note.noteid),
      note.noteid,
      note.topicid,
      note.deckId,
      note.now,
      made.mid,
      JSON.stringify(made.fields),
      importedTextHash(note.title, note.body),
    ],
  );
  tx.run('INSERT OR IGNORE INTO anki_models(mid, model) VALUES (?, ?)', [model.id, JSON.stringify(model)]);
}

/** updateNoteFields: the note's stored fields, the hash of the text they now make, and when (its cards' faces are as of now). */
export function rewriteMadeNote(
  tx: WriteTx,
  noteid: string,
  fields: readonly string[],
  text: { title: string; body: string },
  now: string,
): void {
  tx.run('UPDATE anki_notes SET fields = ?, text_hash = ?, imported_at = ? WHERE noteid = ?', [
    JSON.stringify(fields),
    importedTextHash(text.title, text.body),
    now,
    noteid,
  ]);
}
