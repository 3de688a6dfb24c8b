import { ankiIdOf } from './ankiIds';
import { fieldValues, type AnkiNote } from './ankiNoteRead';
import { AnkiError } from './ankiError';
import { htmlToText } from './ankiFields';

/**
 * findNotes's query, the part of Anki's search syntax tools send: terms
 * separated by spaces (double quotes keep spaces in one), all of which must
 * match; `-` negates a term; `*` is a wildcard. `deck:Name` (its subdecks
 * too), `tag:Name` (its child tags too), `note:Basic|Cloze`, `nid:1,2`,
 * `added:N` (the last N days), `Field:text` for one field, and plain text in any field (case-insensitive).
 */

type Test = (n: AnkiNote) => boolean;

/** The query's terms, quotes removed. */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/(-?)(?:"((?:[^"\\]|\\.)*)"|((?:[^\s"]|"(?:[^"\\]|\\.)*")+))/g)) {
    const body = (m[2] ?? m[3] ?? '').replace(/"/g, '');
    if (body) out.push(m[1] + body);
  }
  return out;
}

/** `*` any run, `_` one character; everything else literal; case-insensitive; whole value. */
const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[\\s\\S]*')
      .replace(/_/g, '.')}$`,
    'i',
  );
const contains = (pattern: string) => glob(`*${pattern}*`);

function termTest(term: string): Test {
  const colon = term.indexOf(':');
  const key = colon > 0 ? term.slice(0, colon).toLowerCase() : '';
  const value = colon > 0 ? term.slice(colon + 1) : term;
  switch (key) {
    case 'deck': {
      if (value === '*') return () => true;
      const exact = glob(value);
      const child = glob(`${value}::*`);
      return (n) => n.decks.some((d) => exact.test(d.title) || child.test(d.title));
    }
    case 'tag': {
      const tag = value.replace(/::/g, '/');
      if (tag === '' || tag === 'none') return (n) => n.hashtags.length === 0;
      const exact = glob(tag);
      const child = glob(`${tag}/*`);
      return (n) => n.hashtags.some((h) => exact.test(h) || child.test(h));
    }
    case 'note': {
      const model = glob(value);
      return (n) => model.test(n.model);
    }
    case 'nid': {
      const ids = new Set(value.split(',').map((s) => Number(s.trim())));
      return (n) => ids.has(ankiIdOf(n.noteid) ?? -1);
    }
    case 'added': {
      // Added in the last N days, today counting as the first (from local midnight), as Anki counts.
      const days = Number(value);
      if (!Number.isInteger(days) || days < 1) throw new AnkiError(`added:${value}: a whole number of days ≥ 1`);
      const since = new Date();
      since.setHours(0, 0, 0, 0);
      since.setDate(since.getDate() - (days - 1));
      const from = since.toISOString();
      return (n) => n.created >= from;
    }
    case '':
      break;
    default: {
      if (/^(is|prop|rated|edited|introduced|flag|card|cid|mid|did|dupe|re|w|nc)$/.test(key)) {
        throw new AnkiError(
          `search term ${key}: is not served by this bridge (served: deck:, tag:, note:, nid:, added:, Field:text, plain text)`,
        );
      }
      const field = key;
      const match = glob(value);
      return (n) =>
        Object.entries(fieldValues(n)).some(
          ([name, html]) => name.toLowerCase() === field && match.test(htmlToText(html)),
        );
    }
  }
  const text = contains(value);
  return (n) => text.test(n.title) || text.test(n.body) || (n.question !== null && text.test(n.question));
}

/** The notes among `notes` that match every term of `query` (an empty query matches all). */
export function searchNotes(notes: readonly AnkiNote[], query: unknown): AnkiNote[] {
  if (typeof query !== 'string') throw new AnkiError('findNotes needs a query string');
  const tests = queryTerms(query).map((t): Test => {
    if (t.startsWith('-') && t.length > 1) {
      const test = termTest(t.slice(1));
      return (n) => !test(n);
    }
    return termTest(t);
  });
  return notes.filter((n) => tests.every((test) => test(n)));
}
