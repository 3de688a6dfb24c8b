import { MAX_HASHTAG_LENGTH, MAX_HASHTAGS_PER_CALL } from '../../domain/cards/noteHashtags';
import { MAX_MEDIA_BYTES } from '../../domain/decks/anki/apkgPackage';
import { createNoteRequest } from '../routes/studySetCards';
import { topicTitle } from '../routes/topicFields';
import { AnkiError } from './ankiError';
import { tagToHashtag } from './ankiFields';

/**
 * The limits of what AnkiConnect writes are the REST routes' own: a deck name
 * is a study-set title (a deck names both), a note's first field the card's
 * title, its second the card's text, its tags hashtags. Past a limit the
 * action is refused, nothing cut or dropped in silence.
 */

/**
 * A request's body: one largest media file (MAX_MEDIA_BYTES, 32 MiB) as
 * base64, and 1 MiB for the rest of the JSON: 45,787,820 bytes.
 */
export const ANKI_BODY_LIMIT = Math.ceil(MAX_MEDIA_BYTES / 3) * 4 + 1024 * 1024;

/**
 * Items one list parameter (notes, cards, decks, multi's actions, …) may hold
 * in one call. Measured with 600-character notes: 1,000 of them cost about
 * +70 MB to add and +7 MB to read as notesInfo or cardsInfo (5,000: +95 MB
 * and +42 MB), where the body limit alone let one call list millions of ids.
 */
export const MAX_LIST_ITEMS = 1000;

/** Each list of `params` within MAX_LIST_ITEMS, before the action reads any of it. */
export function checkListLengths(action: string, params: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(params))
    if (Array.isArray(value) && value.length > MAX_LIST_ITEMS)
      throw new AnkiError(
        `${action}: ${name} has ${value.length} items; one call takes at most ${MAX_LIST_ITEMS} (send the rest in further calls)`,
      );
}

/** A field's HTML as sent, before its tags go: ten times the longest card text. */
export const MAX_FIELD_HTML = 1_000_000;

const quoted = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

/** A deck name as a study-set title may be (trimmed, 1..200 characters). */
export function checkDeckName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim()) throw new AnkiError('deck name is missing');
  const res = topicTitle.safeParse(name);
  if (!res.success)
    throw new AnkiError(
      `deck name ${quoted(name)} (${name.length} characters): ${res.error.issues[0].message}; a deck name follows the rule of a study-set title`,
    );
  return res.data;
}

/** Each field's HTML within MAX_FIELD_HTML, before any of it is read. */
export function checkFieldSizes(fields: Record<string, string>): void {
  for (const [name, html] of Object.entries(fields))
    if (html.length > MAX_FIELD_HTML)
      throw new AnkiError(`field ${name} has ${html.length} characters; a field takes at most ${MAX_FIELD_HTML}`);
}

/** The card's title and text within the limits of POST /study-sets/{id}/notes. */
export function checkCardText(title: string | undefined, body: string | undefined): void {
  const { title: titleRule, text: textRule } = createNoteRequest.shape;
  for (const [what, value, rule] of [
    ['the first field', title, titleRule],
    ['the second field', body, textRule],
  ] as const) {
    const res = value === undefined ? undefined : rule.safeParse(value);
    if (res && !res.success)
      throw new AnkiError(`${what} as text is too long: ${res.error.issues[0].message} (as a card made over REST)`);
  }
}

/** Anki's tags as hashtag paths: at most MAX_HASHTAGS_PER_CALL, each one short enough to keep. */
export function tagsToHashtags(tags: readonly unknown[]): string[] {
  const named = tags.filter((t): t is string => typeof t === 'string' && t.trim() !== '');
  if (named.length > MAX_HASHTAGS_PER_CALL)
    throw new AnkiError(`${named.length} tags; a note takes at most ${MAX_HASHTAGS_PER_CALL}`);
  const out: string[] = [];
  for (const tag of named) {
    const path = tagToHashtag(tag);
    if (path) out.push(path);
    else if (tag.length > MAX_HASHTAG_LENGTH)
      throw new AnkiError(`tag ${quoted(tag)}: at most ${MAX_HASHTAG_LENGTH} characters, its levels included`);
  }
  return out;
}
