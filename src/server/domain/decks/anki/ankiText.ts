import { createHash } from 'node:crypto';

/**
 * Text both ways between Anki fields (HTML) and cards (plain text): HTML
 * reduced to text, the media an `<img>` names, tags and hashtags, cloze
 * markup, and the checksum Anki keeps of a note's first field.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/** A field's HTML as text: line breaks for <br> and block ends, tags dropped, entities decoded, blank runs collapsed. */
export function htmlToText(html: string): string {
  // Most fields hold no markup and no blank run: each pass below would give them back unchanged.
  const text = MARKUP.test(html) ? decodeEntities(withoutTags(html)) : html;
  return (BLANK_RUN.test(text) ? collapseBlanks(text) : text).trim();
}

const MARKUP = /[<&]/;
/** What collapseBlanks changes: a tab or no-break space, two spaces, a space beside a line break, three line breaks. */
const BLANK_RUN = /[\t\u00a0]| [ \n]|\n( |\n\n)/;

const withoutTags = (html: string) =>
  html
    .replace(/<(style|script)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(div|p|li|h[1-6]|tr)\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '');

const collapseBlanks = (text: string) =>
  text
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n');

/** The media file names `<img src>` refers to, in order, each once. */
export function imageNames(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    let name = decodeEntities(m[1] ?? m[2] ?? m[3] ?? '');
    try {
      name = decodeURIComponent(name);
    } catch {
      // a literal % in the name
    }
    if (name && !/^[a-z]+:/i.test(name) && !out.includes(name)) out.push(name);
  }
  return out;
}

/** Text as a field: HTML special characters escaped, line breaks as <br>. */
export function textToHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>');
}

/** Anki tags → hashtag paths (`a::b` → `a/b`), and back. */
export const tagToHashtag = (tag: string) =>
  tag
    .split('::')
    .map((s) => s.replace(/\//g, '-').trim())
    .filter(Boolean)
    .join('/');
export const hashtagToTag = (path: string) =>
  path
    .split('/')
    .map((s) => s.replace(/\s+/g, '_'))
    .filter(Boolean)
    .join('::');

// `{{c1::answer}}`, `{{c1::answer::hint}}`, and `{{c1,2::answer}}`: one deletion on the cards of each number named.
const ANKI_CLOZE = /\{\{c((?=[\d,]*\d)[\d,]+)::([\s\S]*?)(?:::([\s\S]*?))?\}\}/g;
const ordinalsOf = (list: string) =>
  list
    .split(',')
    .filter((s) => s !== '')
    .map(Number);

/** Whether a text holds Anki cloze markup, `{{c1::answer}}` or `{{c1,2::answer}}`. */
export const hasAnkiCloze = (text: string) => /\{\{c(?=[\d,]*\d)[\d,]+::/.test(text);

/** The clozes revealed: `{{c1::Paris::city}}` → `Paris`. */
export const revealClozes = (text: string) => text.replace(ANKI_CLOZE, (_m, _n, answer: string) => answer);

/** The question of cloze card `n` (1-based): the clozes naming n kept as `{{cN::…}}` markup, the others revealed. */
export const clozeQuestion = (text: string, n: number) =>
  text.replace(ANKI_CLOZE, (_m, k: string, answer: string, hint: string | undefined) =>
    ordinalsOf(k).includes(n) ? `{{c${n}::${answer}${hint === undefined ? '' : `::${hint}`}}}` : answer,
  );

/** The cloze numbers a text uses (each a deletion names; c0 none, as in Anki), ascending. */
export function clozeNumbers(text: string): number[] {
  const all = [...text.matchAll(ANKI_CLOZE)].flatMap((m) => ordinalsOf(m[1]));
  return [...new Set(all.filter((n) => n > 0))].sort((a, b) => a - b);
}

/** Anki's note checksum: the first 8 hex digits of the SHA-1 of the first field's text (media names kept, as Anki does), as an integer. */
export function fieldChecksum(firstField: string): number {
  const withMedia = firstField.replace(/<img\b[^>]*?\bsrc\s*=\s*["']?([^"'\s>]+)["']?[^>]*>/gi, ' $1 ');
  const stripped = decodeEntities(withMedia.replace(/<[^>]*>/g, '')).trim();
  return parseInt(createHash('sha1').update(stripped, 'utf8').digest('hex').slice(0, 8), 16);
}
