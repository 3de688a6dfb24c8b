import { fieldIsEmpty } from './ankiFieldEmpty';

/**
 * Anki's card templates rendered for one card of a note: field
 * replacements, `{{FrontSide}}`, the filters `cloze:`, `text:`, `type:`
 * (shown as text on the answer, a blank on the question) and `hint:`, and
 * the sections `{{#F}}…{{/F}}` (F not empty) and `{{^F}}…{{/F}}` (F empty).
 * The output is HTML as Anki would show it; callers reduce it to text.
 */

export interface AnkiTemplate {
  name: string;
  ord: number;
  qfmt: string;
  afmt: string;
}

export interface TemplateNote {
  fieldNames: readonly string[];
  fields: readonly string[];
  tags: readonly string[];
  modelName: string;
}

// `{{c1::…}}`, and `{{c1,2::…}}`: one deletion on the cards of each number it names.
const CLOZE = /\{\{c((?=[\d,]*\d)[\d,]+)::([\s\S]*?)(?:::([\s\S]*?))?\}\}/g;
const SECTION = /\{\{([#^])\s*([^}]+?)\s*\}\}([\s\S]*?)\{\{\/\s*\2\s*\}\}/g;
const TAG = /\{\{\s*([^#^/}][^}]*?)\s*\}\}/g;

const stripHtml = (html: string) => html.replace(/<[^>]*>/g, '');

/**
 * Cloze text for card `n` (1-based), as Anki's reveal_cloze_text: a deletion that names n (`c2`, `c1,2`) hidden on
 * the question, marked on the answer; the others shown. A field with no deletion for n renders empty, as in Anki.
 */
export function renderCloze(text: string, n: number, side: 'q' | 'a'): string {
  let active = false;
  const out = text.replace(CLOZE, (_m, k: string, answer: string, hint: string | undefined) => {
    if (!k.split(',').some((o) => o !== '' && Number(o) === n)) return answer;
    active = true;
    return side === 'q' ? `<span class="cloze">[${hint ?? '...'}]</span>` : `<span class="cloze">${answer}</span>`;
  });
  return active ? out : '';
}

function fieldValue(note: TemplateNote, name: string, card: string): string | undefined {
  const i = note.fieldNames.indexOf(name);
  if (i >= 0) return note.fields[i] ?? '';
  if (name === 'Tags') return note.tags.join(' ');
  if (name === 'Type') return note.modelName;
  if (name === 'Card') return card;
  return undefined;
}

// A section tests a field as card generation does (Anki's field_is_empty): a picture or &nbsp; fills it.
const isEmpty = (v: string | undefined) => !v || fieldIsEmpty(v);

function renderSide(fmt: string, note: TemplateNote, ord: number, card: string, side: 'q' | 'a', front: string) {
  // Sections may nest: resolve innermost first until none is left (bounded by the template's length).
  let out = fmt;
  for (let guard = 0; guard < 50; guard++) {
    const next = out.replace(SECTION, (_m, kind: string, name: string, inner: string) => {
      const empty = isEmpty(fieldValue(note, name, card));
      return (kind === '#' ? !empty : empty) ? inner : '';
    });
    if (next === out) break;
    out = next;
  }
  return out.replace(TAG, (_m, spec: string) => {
    if (spec === 'FrontSide') return front;
    const parts = spec.split(':').map((s) => s.trim());
    const name = parts.pop()!;
    let value = fieldValue(note, name, card);
    if (value === undefined) return '';
    // Filters apply right to left, as Anki applies them.
    for (const filter of parts.reverse()) {
      if (filter === 'cloze') value = renderCloze(value, ord + 1, side);
      else if (filter === 'text') value = stripHtml(value);
      else if (filter === 'type') value = side === 'q' ? '[...]' : stripHtml(value);
      // hint: and unknown filters show the field as it is.
    }
    return value;
  });
}

/** The question and answer HTML of the card with template `tmpl` (for a cloze type, `ord` is the cloze number - 1). */
export function renderCard(tmpl: AnkiTemplate, note: TemplateNote, ord: number): { question: string; answer: string } {
  const question = renderSide(tmpl.qfmt, note, ord, tmpl.name, 'q', '');
  const answer = renderSide(tmpl.afmt, note, ord, tmpl.name, 'a', question);
  return { question, answer };
}
