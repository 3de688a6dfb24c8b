import { normaliseHashtag } from '../../domain/cards/noteHashtags';
import { AnkiError } from './ankiError';

/**
 * Note fields as AnkiConnect clients send them (HTML) and our cards hold them
 * (plain text, image parts, hashtags); and the two note types we serve.
 */

export const MODELS = { Basic: ['Front', 'Back'], Cloze: ['Text', 'Back Extra'] } as const;
export type ModelName = keyof typeof MODELS;
/** Older Anki called the Cloze type's second field "Extra": taken on input, answered as "Back Extra". */
const FIELD_ALIASES: Record<string, string> = { Extra: 'Back Extra' };

export const isModel = (name: unknown): name is ModelName => typeof name === 'string' && Object.hasOwn(MODELS, name);

/** The fields of a request, by our names; unknown field names are an error, as in Anki. */
export function fieldsOf(model: ModelName, fields: Record<string, unknown>): Record<string, string> {
  const known = MODELS[model] as readonly string[];
  const out: Record<string, string> = Object.fromEntries(known.map((f) => [f, '']));
  for (const [raw, value] of Object.entries(fields ?? {})) {
    const name = FIELD_ALIASES[raw] && model === 'Cloze' ? FIELD_ALIASES[raw] : raw;
    if (!known.includes(name))
      throw new AnkiError(`field ${raw} does not exist in note type ${model} (its fields: ${known.join(', ')})`);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a field is any JSON value, coerced as before
    out[name] = typeof value === 'string' ? value : String(value ?? '');
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** HTML of a field → the text a card shows: breaks and blocks become line breaks, tags go, entities decode. */
export function htmlToText(html: string): string {
  return html
    .replace(/\[sound:[^\]]*\]/gi, '')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(div|p|li|h[1-6]|tr)\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
      }
      return ENTITIES[e.toLowerCase()] ?? all;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Text back into a field's HTML (notesInfo): what a client shows as it would show Anki's. */
export const textToHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>');

/** The media file names `<img src="…">` of a field refers to (bare names only: a URL is not a media file). */
export function imageNames(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    const src = decodeEntities((m[1] ?? m[2] ?? m[3] ?? '').trim());
    if (src && !/^[a-z][a-z0-9+.-]*:/i.test(src) && !out.includes(src)) out.push(src);
  }
  return out;
}

const decodeEntities = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

const CLOZE_DELETION = /\{\{c(\d+)::([\s\S]*?)(?:::[\s\S]*?)?\}\}/g;

/** A Cloze note's Text → the card's title (answers shown) and the review question (`{{cloze}}` where each deletion was). */
export function clozeParts(text: string): { title: string; question: string; deletions: number } {
  let deletions = 0;
  const title = text.replace(CLOZE_DELETION, (_a, _n, answer: string) => answer);
  const question = text.replace(CLOZE_DELETION, () => {
    deletions++;
    return '{{cloze}}';
  });
  return { title, question, deletions };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The Text field again from a title and a question: each `{{cloze}}` becomes `{{cN::what the title has there}}`. */
export function clozeText(title: string, question: string): string {
  const pieces = question.split(/\{\{\s*cloze\s*\}\}/i);
  if (pieces.length < 2) return title;
  const match = new RegExp(`^${pieces.map(escapeRegExp).join('([\\s\\S]+?)')}$`).exec(title);
  if (!match) return pieces.map((p, i) => (i ? `{{c${i}::…}}${p}` : p)).join('');
  return pieces.map((p, i) => (i ? `{{c${i}::${match[i]}}}${p}` : p)).join('');
}

/** An Anki tag → our hashtag path: `::` is the hierarchy, anything a hashtag cannot hold becomes `_`. */
export function tagToHashtag(tag: string): string | null {
  const path = tag
    .trim()
    .split('::')
    .map((seg) => seg.replace(/[^\p{L}\p{M}\p{N}_.-]/gu, '_').replace(/^[.-]/, '_'))
    .filter(Boolean)
    .join('/');
  return path ? normaliseHashtag(path) : null;
}

export const hashtagToTag = (path: string) => path.split('/').join('::');
