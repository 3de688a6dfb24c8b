import type { WriteTx } from '../../../ground/store/store';

/**
 * The card index. order=DESC keeps each doclist newest first, the order a
 * search reads its window in (librarySearch.ts): ascending doclists are read
 * backwards only after loading all of them (a word in all 100k cards cost
 * ~6 ms before the first row), descending ones a window at a time (~0.4 ms).
 *
 * The ids are stored, not indexed: a card's row is found by its noteid through
 * the content table's index below, and nothing searches their hex groups.
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
];

/** Drops the card index and makes it again, empty. */
export function remakeCardIndex(tx: WriteTx): void {
  tx.run('DROP TABLE IF EXISTS notes_fts');
  for (const sql of CARD_INDEX_TABLE) tx.run(sql);
}

/**
 * Writes index rows given as one JSON array of `[noteid, topicid, body]`:
 * SQLite unpacks it (json_each), so a chunk is one statement and one journal entry.
 */
export function insertIndexRowsJson(tx: WriteTx, rowsJson: string): void {
  tx.run(
    `INSERT INTO notes_fts(noteid, topicid, body) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)`,
    [rowsJson],
  );
}
