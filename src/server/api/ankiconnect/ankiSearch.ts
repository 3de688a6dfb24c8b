import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { QUERY_LIMITS } from '../../ground/text/searchTerms';
import { ankiIdOf } from './ankiIds';
import { fieldValues, type AnkiNote } from './ankiNoteRead';
import { AnkiError } from './ankiError';
import { htmlToText } from './ankiFields';
import { compileGlob, containsGlob } from './ankiGlob';

/**
 * findNotes's query, the part of Anki's search syntax tools send: terms
 * separated by spaces (double quotes keep spaces in one), all of which must
 * match; `-` negates a term; `*` is a wildcard. `deck:Name` (its subdecks
 * too), `tag:Name` (its child tags too), `note:Basic|Cloze`, `nid:1,2`,
 * `added:N` (the last N days), `Field:text` for one field, and plain text in any field (case-insensitive).
 *
 * Bounded as REST search is: at most QUERY_LIMITS characters and terms,
 * matched without backtracking (ankiGlob.ts), the notes tested in slices that
 * give the event loop back, and the search ended once its slices add up to SEARCH_BUDGET_MS.
 */

/** A note as the terms read it: each field's text made once, on first use. */
class NoteView {
  private fields?: Array<[string, string]>;
  constructor(readonly note: AnkiNote) {}
  field(name: string): string[] {
    this.fields ??= Object.entries(fieldValues(this.note)).map(([k, html]) => [k.toLowerCase(), htmlToText(html)]);
    return this.fields.filter(([k]) => k === name).map(([, text]) => text);
  }
}

type Test = (n: NoteView) => boolean;

/** Longest a search may work (its slices added up) before it ends with an error instead. */
export const SEARCH_BUDGET_MS = 5000;
/** Longest the search holds the event loop at once. */
const SLICE_MS = 20;
/** added:N beyond this many days leaves the range of a date. */
const MAX_ADDED_DAYS = 10_000_000;
const UNSERVED = /^(is|prop|rated|edited|introduced|flag|card|cid|mid|did|dupe|re|w|nc)$/;

/** The query's terms, quotes removed (its length is checked first: the pattern below is not linear). */
export function queryTerms(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/(-?)(?:"((?:[^"\\]|\\.)*)"|((?:[^\s"]|"(?:[^"\\]|\\.)*")+))/g)) {
    const body = (m[2] ?? m[3] ?? '').replace(/"/g, '');
    if (body) out.push(m[1] + body);
  }
  return out;
}

function addedSince(value: string): string {
  // Added in the last N days, today counting as the first (from local midnight), as Anki counts.
  const days = /^\d{1,8}$/.test(value) ? Number(value) : NaN;
  if (!(days >= 1 && days <= MAX_ADDED_DAYS))
    throw new AnkiError(`added:${value.slice(0, 40)}: a whole number of days from 1 to ${MAX_ADDED_DAYS}`);
  const since = new Date();
  since.setHours(0, 0, 0, 0);
  since.setDate(since.getDate() - (days - 1));
  return since.toISOString();
}

/** A name and its children (`Parent::Child` for decks, `parent/child` for tags). */
export function nameOrChild(value: string, separator: string): (name: string) => boolean {
  const exact = compileGlob(value);
  const child = compileGlob(`${value}${separator}*`);
  return (name) => exact(name) || child(name);
}

function termTest(term: string): Test {
  const colon = term.indexOf(':');
  const key = colon > 0 ? term.slice(0, colon).toLowerCase() : '';
  const value = colon > 0 ? term.slice(colon + 1) : term;
  switch (key) {
    case 'deck': {
      if (value === '*') return () => true;
      const deck = nameOrChild(value, '::');
      return ({ note }) => note.decks.some((d) => deck(d.title));
    }
    case 'tag': {
      const tag = value.replace(/::/g, '/');
      if (tag === '' || tag === 'none') return ({ note }) => note.hashtags.length === 0;
      const path = nameOrChild(tag, '/');
      return ({ note }) => note.hashtags.some(path);
    }
    case 'note': {
      const model = compileGlob(value);
      return ({ note }) => model(note.made?.model.name ?? note.model);
    }
    case 'nid': {
      const ids = new Set(value.split(',').map((s) => Number(s.trim())));
      return ({ note }) => ids.has(ankiIdOf(note.noteid) ?? -1);
    }
    case 'added': {
      const from = addedSince(value);
      return ({ note }) => note.created >= from;
    }
    case '': {
      const text = containsGlob(value);
      return ({ note: n }) => text(n.title) || text(n.body) || (n.question !== null && text(n.question));
    }
    default: {
      if (UNSERVED.test(key))
        throw new AnkiError(
          `search term ${key}: is not served by this bridge (served: deck:, tag:, note:, nid:, added:, Field:text, plain text)`,
        );
      const match = compileGlob(value);
      return (n) => n.field(key).some(match);
    }
  }
}

const ID_LIST = /\bnid:[\d,]+/g;
const MAX_QUERY_IDS = 10_000;

/** The query's tests, refused when it is longer or has more terms than a search may. */
export function compileQuery(query: unknown): Test[] {
  if (typeof query !== 'string') throw new AnkiError('findNotes needs a query string');
  // An id list (`nid:1,2,…`, as scripts select notes they hold) costs one set lookup a note whatever its
  // length, so it is bounded by its own count, not by the characters a search of text may have.
  const ids = query.match(ID_LIST)?.reduce((n, list) => n + list.split(',').length, 0) ?? 0;
  if (ids > MAX_QUERY_IDS)
    throw new AnkiError(`the query lists ${ids} ids; a search takes at most ${MAX_QUERY_IDS} (ask in several calls)`);
  const costed = query.replace(ID_LIST, 'nid:0');
  if (costed.length > QUERY_LIMITS.chars)
    throw new AnkiError(
      `the query has ${costed.length} characters besides its id lists; a search takes at most ${QUERY_LIMITS.chars} (as GET /search): narrow it, e.g. with deck: or tag:`,
    );
  const terms = queryTerms(query);
  if (terms.length > QUERY_LIMITS.terms)
    throw new AnkiError(`the query has ${terms.length} terms; a search takes at most ${QUERY_LIMITS.terms}`);
  return terms.map((t): Test => {
    if (t.startsWith('-') && t.length > 1) {
      const test = termTest(t.slice(1));
      return (n) => !test(n);
    }
    return termTest(t);
  });
}

const tooCostly = (budgetMs: number) =>
  new AnkiError(
    `QUERY_TOO_COSTLY: the search ran over its ${budgetMs / 1000} s budget and was stopped; narrow it (fewer wildcards, a deck: or tag: term)`,
  );

/** The notes among `notes` (an array, or pages of them) that match every term of `query` (an empty query matches all). */
export async function searchNotes(
  notes: readonly AnkiNote[] | AsyncIterable<readonly AnkiNote[]>,
  query: unknown,
  budgetMs = SEARCH_BUDGET_MS,
): Promise<AnkiNote[]> {
  const tests = compileQuery(query);
  const out: AnkiNote[] = [];
  // The budget counts this search's own slices, not the time others ran while it gave the loop back: a busy bridge
  // (an import, other searches) would otherwise end a search that did little work.
  let spent = 0;
  let slice = performance.now();
  const giveBack = async () => {
    spent += performance.now() - slice;
    await yieldToLoop();
    slice = performance.now();
  };
  const pages = Symbol.asyncIterator in notes ? notes : [notes];
  for await (const page of pages) {
    for (const note of page) {
      const inSlice = performance.now() - slice;
      if (spent + inSlice > budgetMs) throw tooCostly(budgetMs);
      if (inSlice > SLICE_MS) await giveBack();
      const view = new NoteView(note);
      if (tests.every((test) => test(view))) out.push(note);
    }
    // Reading the next page holds the loop too: it starts on a fresh slice.
    await giveBack();
  }
  return out;
}
