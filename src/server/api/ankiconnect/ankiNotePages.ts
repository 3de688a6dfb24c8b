import { inList, type Db } from '../../domain/cards/noteRows';
import type { SqlParam } from '../../ground/store/journal';
import { OWNER_NOTE, readAnkiNotes, withChildCards, type AnkiNote } from './ankiNoteRead';
import { compileQuery, nameOrChild, queryTerms, searchNotes } from './ankiSearch';

/**
 * findNotes and findCards read the collection a page at a time, in the order
 * of the notes' first visible review cards (as readAnkiNotes orders them), so
 * a search gives the event loop back between pages instead of reading every
 * note in one synchronous go first. A page is a keyset range of review cards
 * (created_at, rowid: the deck_cards_created index), and each note is read
 * whole, with all its decks, on the page its first card (within the filter)
 * is on.
 *
 * Where the query allows, SQL narrows the cards read: a deck: term the query
 * must match keeps the cards of the decks whose names it matches (the same
 * test, run on the few deck names). The JS tests still decide every note; the
 * filter only spares reading notes that cannot match.
 */

/** Review cards a page reads (each note read once, on its first page). */
export const PAGE_CARDS = 500;

const VISIBLE = `
FROM deck_cards c
JOIN topics d ON d.topicid = c.deck_id AND d.kind = 'deck' AND d.hidden = 0
JOIN notes n ON n.noteid = ${OWNER_NOTE} AND n.hidden = 0
JOIN topics s ON s.topicid = n.topicid AND s.hidden = 0 AND s.kind = 'studyset'`;

interface PageRow {
  noteid: string;
  created_at: string;
  row: number;
}

/** The decks of the query's first positive deck: term, or undefined when the query has none (or `deck:*`). */
function deckScope(db: Db, query: string): string[] | undefined {
  const term = queryTerms(query).find((t) => /^deck:/i.test(t) && !/^deck:\*$/i.test(t));
  if (term === undefined) return undefined;
  const test = nameOrChild(term.slice('deck:'.length), '::');
  return db
    .all<{ topicid: string; title: string }>(`SELECT topicid, title FROM topics WHERE kind = 'deck' AND hidden = 0`)
    .filter((d) => test(d.title))
    .map((d) => d.topicid);
}

/** Each note's first visible review card, to put notes found through a filter back in the unfiltered order. */
function firstCards(db: Db, noteIds: readonly string[]): Map<string, [string, number]> {
  const out = new Map<string, [string, number]>();
  const sources = withChildCards(db, noteIds);
  for (let i = 0; i < sources.length; i += PAGE_CARDS) {
    const chunk = sources.slice(i, i + PAGE_CARDS) as SqlParam[];
    for (const r of db.all<PageRow>(
      `SELECT n.noteid, c.created_at, c.rowid AS row ${VISIBLE}
       WHERE c.source_note_id IN ${inList(chunk.length)} ORDER BY c.created_at, c.rowid`,
      chunk,
    ))
      if (!out.has(r.noteid)) out.set(r.noteid, [r.created_at, r.row]);
  }
  return out;
}

/** The visible notes, a page at a time; only those with a card in `decks` when it is given. */
export async function* ankiNotePages(db: Db, decks?: readonly string[]): AsyncGenerator<AnkiNote[]> {
  if (decks?.length === 0) return;
  const seen = new Set<string>();
  // `+` keeps the plan on deck_cards_created (pages in order, no sort of the whole deck per page).
  const inDecks = decks ? `AND +c.deck_id IN ${inList(decks.length)}` : '';
  let after: [string, number] = ['', -1];
  for (;;) {
    const rows = db.all<PageRow>(
      `SELECT n.noteid, c.created_at, c.rowid AS row ${VISIBLE}
       WHERE (c.created_at, c.rowid) > (?, ?) ${inDecks} ORDER BY c.created_at, c.rowid LIMIT ${PAGE_CARDS}`,
      [...after, ...((decks ?? []) as SqlParam[])],
    );
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    after = [last.created_at, last.row];
    const fresh = [...new Set(rows.map((r) => r.noteid))].filter((id) => !seen.has(id));
    for (const id of fresh) seen.add(id);
    // One read of at most PAGE_CARDS notes answers them in their first cards' order.
    if (fresh.length) yield readAnkiNotes(db, fresh);
  }
}

/** The notes matching `query`, in the order readAnkiNotes gives the whole collection. */
export async function findAnkiNotes(db: Db, query: unknown): Promise<AnkiNote[]> {
  compileQuery(query); // refuses a query too long or malformed before any of it is read here
  const decks = deckScope(db, query as string);
  const found = await searchNotes(ankiNotePages(db, decks), query);
  if (decks === undefined || found.length < 2) return found;
  const first = firstCards(
    db,
    found.map((n) => n.noteid),
  );
  const key = (n: AnkiNote) => first.get(n.noteid) ?? ['', -1];
  return found.sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] < kb[0] ? -1 : ka[0] > kb[0] ? 1 : ka[1] - kb[1];
  });
}
