import type { Store } from '../store/store';
import { cardIndexBody } from '../search/cardIndexText';

/**
 * What the card index rows hold; a data dir whose rows were written another
 * way (schema migration 9 dropped them with the old tokenizer) has them
 * written again at start. Bump it when the index terms change.
 */
const INDEX_TERMS = '1';
const KEY = 'card_index_terms';
/** Rows per write: one json_each statement each, so the journal holds a few large entries. */
const CHUNK = 5000;

/**
 * Writes every visible card's index row from its title, texts (by index) and
 * #tags, as reindexNote does for one card, once per INDEX_TERMS. Returns how
 * many rows were written (0 when the index is current).
 */
export async function rebuildCardIndex(store: Store): Promise<number> {
  if (store.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [KEY])?.value === INDEX_TERMS) return 0;
  const texts = grouped(store.all<{ noteid: string; v: string }>('SELECT noteid, text AS v FROM note_texts ORDER BY noteid, idx'));
  const tags = grouped(store.all<{ noteid: string; v: string }>(`SELECT noteid, '#' || path AS v FROM note_hashtags ORDER BY noteid, path`));
  const rows = store
    .all<{ noteid: string; topicid: string; title: string }>('SELECT noteid, topicid, title FROM notes WHERE hidden = 0 ORDER BY rowid')
    .map((n) => [n.noteid, n.topicid, cardIndexBody([n.title, ...(texts.get(n.noteid) ?? []), ...(tags.get(n.noteid) ?? [])].join('\n'))]);
  await store.write((tx) => tx.run('DELETE FROM notes_fts'));
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
