import type { Store } from '../../ground/store/store';
import { cardIndexBody } from '../../ground/search/cardIndexText';

/**
 * What the card index rows hold and how the table keeps them; a data dir
 * whose rows were written another way (schema migration 9 dropped them with
 * the old tokenizer; '1' kept doclists oldest first; '2' had no automerge;
 * '3' indexed the ids) has the table made again and its rows written at
 * start. Bump it when either changes.
 */
const INDEX_TERMS = '4';

/**
 * The card index. order=DESC keeps each doclist newest first, the order a
 * search reads its window in (librarySearch.ts): ascending doclists are read
 * backwards only after loading all of them (a word in all 100k cards cost
 * ~6 ms before the first row), descending ones a window at a time (~0.4 ms).
 *
 * The ids are stored, not indexed: a card's row is found by them through
 * the content table's indexes below, and nothing searches their hex groups.
 * Indexed, they were ten terms a card, half of them in no other card: 2,000
 * cards written or deleted took ~30 % longer and the index ~25 % more pages
 * (measured with 20k cards of 25-word texts).
 *
 * automerge=4 keeps the index in few segments. A card write is its own FTS4
 * segment (the write's other statements flush FTS4's pending terms), and
 * FTS4 alone merges a level only when it holds 16, so 100k cards written one
 * by one sat in 35 segments, each of which every query token looks itself
 * up in (光合作用 细胞: window SQL 2.3 → 0.8 ms). With automerge each write
 * also merges a little wherever a level holds 4 or more: 4-5 segments after
 * the same writes, for the same total write time (100k single-card writes
 * replayed: 33-35 s either way, per-write p99 ~1 ms, the slowest write
 * ~0.9 s instead of FTS4's own ~1.4 s merge into level 4). automerge=2
 * wrote 10% slower, its slowest write 2.4 s, and searched no faster.
 */
const CARD_INDEX_TABLE = [
  'CREATE VIRTUAL TABLE notes_fts USING fts4(noteid, topicid, body, tokenize=simple, order=DESC, notindexed=noteid, notindexed=topicid)',
  "INSERT INTO notes_fts(notes_fts) VALUES('automerge=4')",
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
  await store.write((tx) => {
    tx.run('DROP TABLE IF EXISTS notes_fts');
    for (const sql of CARD_INDEX_TABLE) tx.run(sql);
  });
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = JSON.stringify(rows.slice(i, i + CHUNK));
    await store.write((tx) =>
      tx.run(
        `INSERT INTO notes_fts(noteid, topicid, body) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)`,
        [chunk],
      ),
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
