import type { Store } from '../../ground/store/store';
import { cardIndexBody } from '../../ground/search/cardIndexText';
import { insertIndexRowsJson, remakeCardIndex } from './rows/cardRowsIndex';

/**
 * What the card index rows hold and how the table keeps them; a data dir
 * whose rows were written another way (schema migration 9 dropped them with
 * the old tokenizer; '1' kept doclists oldest first; '2' had no automerge;
 * '3' indexed the ids) has the table made again and its rows written at
 * start. Bump it when either changes (the table is rows/cardRowsIndex.ts's).
 */
const INDEX_TERMS = '4';

const KEY = 'card_index_terms';
/** Rows per write: one json_each statement each, so the journal holds a few large entries. */
const CHUNK = 5000;

/**
 * Makes the card index table again and writes every visible card's index
 * row from its title, texts (by index) and #tags, as reindexNote does for
 * one card, once per INDEX_TERMS. Returns how
 * many rows were written (0 when the index is current).
 */
export async function rebuildCardIndex(store: Store): Promise<number> {
  const held = store.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [KEY])?.value;
  if (held === INDEX_TERMS) return 0;
  const texts = grouped(
    store.all<{ noteid: string; v: string }>('SELECT noteid, text AS v FROM note_texts ORDER BY noteid, idx'),
  );
  const tags = grouped(
    store.all<{ noteid: string; v: string }>(
      `SELECT noteid, '#' || path AS v FROM note_hashtags ORDER BY noteid, path`,
    ),
  );
  const rows = store
    .all<{ noteid: string; topicid: string; title: string }>(
      'SELECT noteid, topicid, title FROM notes WHERE hidden = 0 ORDER BY rowid',
    )
    .map((n) => [
      n.noteid,
      n.topicid,
      cardIndexBody([n.title, ...(texts.get(n.noteid) ?? []), ...(tags.get(n.noteid) ?? [])].join('\n')),
    ]);
  await store.write((tx) => remakeCardIndex(tx));
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = JSON.stringify(rows.slice(i, i + CHUNK));
    await store.write((tx) => insertIndexRowsJson(tx, chunk));
  }
  await store.write((tx) => tx.run(`INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, [KEY, INDEX_TERMS]));
  return rows.length;
}

function grouped(rows: Array<{ noteid: string; v: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    let list = out.get(r.noteid);
    if (!list) out.set(r.noteid, (list = []));
    list.push(String(r.v));
  }
  return out;
}
