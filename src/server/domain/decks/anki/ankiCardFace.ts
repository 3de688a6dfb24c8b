import { clozeNumbersOf, nonemptyFields, parseTemplate, rendersWithFields } from './ankiCardgen';
import type { AnkiModel } from './ankiNotetypes';
import { renderCard, type TemplateNote } from './ankiTemplate';

/**
 * One Anki card's faces as Anki renders them (rslib template.rs render_card):
 * the template through the note's fields, except a card Anki kept after an
 * edit emptied it (Anki never removes cards on an edit), which shows Anki's
 * message on both sides: a cloze card whose number no field holds any more,
 * or a card whose front no longer shows a filled field.
 */

const MISSING_CLOZE = (n: number) =>
  `<div>No cloze ${n} found on card.<br>Please either add a cloze deletion, or use the Empty Cards tool.</div>`;
const EMPTY_FRONT = '<div>The front of this card is blank.</div>';

/** Anki's message for card `ord` of the note when that card is empty by Anki's rule, else undefined. */
export function emptyCardMessage(model: AnkiModel, note: TemplateNote, ord: number): string | undefined {
  if (model.cloze) {
    const numbers = new Set<number>();
    for (const f of note.fields) clozeNumbersOf(f, numbers);
    return numbers.has(ord + 1) ? undefined : MISSING_CLOZE(ord + 1);
  }
  const tmpl = model.templates.find((t) => t.ord === ord);
  const parsed = tmpl && parseTemplate(tmpl.qfmt);
  // A front Anki cannot parse shows Anki's template error, not this message: it is rendered as it stands.
  if (!parsed) return undefined;
  return rendersWithFields(parsed, nonemptyFields(model, note.fields, note.tags)) ? undefined : EMPTY_FRONT;
}

/** The question and answer HTML of the note's card `ord` (for a cloze type, the cloze number - 1), or undefined. */
export function renderAnkiCard(
  model: AnkiModel,
  note: TemplateNote,
  ord: number,
): { question: string; answer: string } | undefined {
  const tmpl = model.cloze ? model.templates[0] : model.templates.find((t) => t.ord === ord);
  if (!tmpl) return undefined;
  const empty = emptyCardMessage(model, note, ord);
  return empty ? { question: empty, answer: empty } : renderCard(tmpl, note, ord);
}
