import type { Store } from '../store/store';
import { cardIndexBody } from '../search/cardIndexText';

/**
 * What the card index rows hold and how the table keeps them; a data dir
 * whose rows were written another way (schema migration 9 dropped them with
 * the old tokenizer; '1' kept doclists oldest first) has the table made
 * again and its rows written at start. Bump it when either changes.
 */
const INDEX_TERMS = '2';

/**
 * The card index. order=DESC keeps each doclist newest first, the order a
 * search reads its window in (librarySearch.ts): ascending doclists are read
 * backwards only after loading all of them (a word in all 100k cards cost
 * ~6 ms before the first row), descending ones a window at a time (~0.4 ms).
 */
const CARD_INDEX_TABLE = [
  'CREATE VIRTUAL TABLE notes_fts USING fts4(noteid, topicid, body, tokenize=simple, order=DESC)',
  'CREATE INDEX notes_fts_content_noteid ON notes_fts_content(c0noteid)',
  'CREATE INDEX notes_fts_content_topic ON notes_fts_content(c1topicid)',
];
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
  if (store.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [KEY])?.value === INDEX_TERMS) return 0;
  const texts = grouped(store.all<{ noteid: string; v: string }>('SELECT noteid, text AS v FROM note_texts ORDER BY noteid, idx'));
  const tags = grouped(store.all<{ noteid: string; v: string }>(`SELECT noteid, '#' || path AS v FROM note_hashtags ORDER BY noteid, path`));
  const rows = store
    .all<{ noteid: string; topicid: string; title: string }>('SELECT noteid, topicid, title FROM notes WHERE hidden = 0 ORDER BY rowid')
    .map((n) => [n.noteid, n.topicid, cardIndexBody([n.title, ...(texts.get(n.noteid) ?? []), ...(tags.get(n.noteid) ?? [])].join('\n'))]);
  await store.write((tx) => {
    tx.run('DROP TABLE IF EXISTS notes_fts');
    for (const sql of CARD_INDEX_TABLE) tx.run(sql);
  });
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = JSON.stringify(rows.slice(i, i + CHUNK));
    await store.write((tx) =>
      tx.run(`INSERT INTO notes_fts(noteid, topicid, body) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)`, [chunk]),
    );
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
