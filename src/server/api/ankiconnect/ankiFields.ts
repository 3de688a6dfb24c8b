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

/**
 * Field HTML is read in steps of the same order and meaning as the regexes
 * they replaced (`\[sound:[^\]]*\]`, `<script…</script>`, `<[^>]*>`,
 * `[ \t]+\n`), found with indexOf instead: each of those rescanned the rest
 * of the text from every unclosed opener, quadratic in a long field.
 */

/** `text` without the spans that `opener` starts and the first `close` after it ends (an unclosed one stays). */
function dropSpans(text: string, opener: RegExp, close: string): string {
  let out = '';
  let at = 0;
  opener.lastIndex = 0;
  for (let m = opener.exec(text); m; m = opener.exec(text)) {
    const end = text.indexOf(close, opener.lastIndex);
    if (end < 0) break; // no close after this one: none after a later one either
    out += text.slice(at, m.index);
    at = end + close.length;
    opener.lastIndex = at;
  }
  return out + text.slice(at);
}

/** `<script>…</script>` and `<style>…</style>` blocks removed (an unclosed one stays). */
function dropRawBlocks(html: string): string {
  const opener = /<(script|style)\b/gi;
  // Per kind, the first close found at or after some point: reused while it lies ahead, so the text is read once.
  const closes = new Map<string, { start: number; end: number }>();
  let out = '';
  let at = 0;
  for (let m = opener.exec(html); m; m = opener.exec(html)) {
    const kind = m[1].toLowerCase();
    let close = closes.get(kind);
    if (!close || (close.start >= 0 && close.start < opener.lastIndex)) {
      const re = new RegExp(`</${kind}\\s*>`, 'gi');
      re.lastIndex = opener.lastIndex;
      const found = re.exec(html);
      close = found ? { start: found.index, end: re.lastIndex } : { start: -1, end: -1 };
      closes.set(kind, close);
    }
    if (close.start < 0) continue;
    out += html.slice(at, m.index);
    at = close.end;
    opener.lastIndex = at;
  }
  return out + html.slice(at);
}

/** Every `<…>` removed; from a `<` with no `>` after it, the rest stays. */
function stripTags(html: string): string {
  let out = '';
  let at = 0;
  for (let lt = html.indexOf('<'); lt >= 0; lt = html.indexOf('<', at)) {
    const gt = html.indexOf('>', lt);
    if (gt < 0) break;
    out += html.slice(at, lt);
    at = gt + 1;
  }
  return out + html.slice(at);
}

/** Each line without its trailing spaces and tabs. */
function trimLineEnds(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let end = line.length;
      while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
      return line.slice(0, end);
    })
    .join('\n');
}

/** HTML of a field → the text a card shows: breaks and blocks become line breaks, tags go, entities decode. */
export function htmlToText(html: string): string {
  const lines = dropRawBlocks(dropSpans(html, /\[sound:/gi, ']'))
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(div|p|li|h[1-6]|tr)\s*>/gi, '\n');
  const text = stripTags(lines).replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[e.toLowerCase()] ?? all;
  });
  return trimLineEnds(text)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Text back into a field's HTML (notesInfo): what a client shows as it would show Anki's. */
export const textToHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>');

/** Pictures one field may name. */
const MAX_FIELD_IMAGES = 100;

/** The media file names `<img src="…">` of a field refers to (bare names only: a URL is not a media file). */
export function imageNames(html: string): string[] {
  // Each unclosed `<img` is read to the end of the field: their number is bounded, not the regex rewritten.
  const tags = html.match(/<img\b/gi)?.length ?? 0;
  if (tags > MAX_FIELD_IMAGES)
    throw new AnkiError(`a field has ${tags} <img> tags; a card takes at most ${MAX_FIELD_IMAGES} pictures per field`);
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

// `{{c1::` and `{{c1,2::` (a deletion on several cards).
const CLOZE_OPENER = /\{\{c(?=[\d,]*\d)[\d,]+::/g;

/**
 * Each `{{cN::answer}}` or `{{cN::answer::hint}}` of a Cloze Text, in order:
 * the answer ends at the first `::` or `}}`, the deletion at the first `}}`.
 * By hand, left to right: a lazy regex rescanned the rest of the text from
 * every unclosed opener.
 */
function clozeDeletions(text: string): Array<{ from: number; to: number; answer: string }> {
  const out: Array<{ from: number; to: number; answer: string }> = [];
  CLOZE_OPENER.lastIndex = 0;
  for (let m = CLOZE_OPENER.exec(text); m; m = CLOZE_OPENER.exec(text)) {
    const start = CLOZE_OPENER.lastIndex;
    const close = text.indexOf('}}', start);
    if (close < 0) break;
    const inside = text.slice(start, close);
    const hint = inside.indexOf('::');
    out.push({ from: m.index, to: close + 2, answer: hint < 0 ? inside : inside.slice(0, hint) });
    CLOZE_OPENER.lastIndex = close + 2;
  }
  return out;
}

/** A Cloze note's Text → the card's title (answers shown) and the review question (`{{cloze}}` where each deletion was). */
export function clozeParts(text: string): { title: string; question: string; deletions: number } {
  const found = clozeDeletions(text);
  let title = '';
  let question = '';
  let at = 0;
  for (const d of found) {
    title += text.slice(at, d.from) + d.answer;
    question += `${text.slice(at, d.from)}{{cloze}}`;
    at = d.to;
  }
  return { title: title + text.slice(at), question: question + text.slice(at), deletions: found.length };
}

/**
 * What each `{{cloze}}` of the question stands for in the title: `pieces` are
 * the question's text around them, each gap at least one character, the
 * shortest gaps first (as the lazy regex this replaced, without its
 * backtracking): a piece placed at its earliest place leaves the most room
 * for the rest, so if that fails, every placement does.
 */
function gapsOf(title: string, pieces: readonly string[]): string[] | undefined {
  const head = pieces[0];
  const last = pieces[pieces.length - 1];
  const tail = title.length - last.length;
  if (tail <= head.length || !title.startsWith(head) || !title.endsWith(last)) return undefined;
  const gaps: string[] = [];
  let pos = head.length;
  for (const piece of pieces.slice(1, -1)) {
    const at = title.indexOf(piece, pos + 1);
    if (at < 0 || at + piece.length >= tail) return undefined;
    gaps.push(title.slice(pos, at));
    pos = at + piece.length;
  }
  if (tail <= pos) return undefined;
  gaps.push(title.slice(pos, tail));
  return gaps;
}

/** The Text field again from a title and a question: each `{{cloze}}` becomes `{{cN::what the title has there}}`. */
export function clozeText(title: string, question: string): string {
  const pieces = question.split(/\{\{\s*cloze\s*\}\}/i);
  if (pieces.length < 2) return title;
  const gaps = gapsOf(title, pieces);
  if (!gaps) return pieces.map((p, i) => (i ? `{{c${i}::…}}${p}` : p)).join('');
  return pieces.map((p, i) => (i ? `{{c${i}::${gaps[i - 1]}}}${p}` : p)).join('');
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
