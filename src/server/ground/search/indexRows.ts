import type { Store } from '../store/store';

/**
 * Rows of a card index table by docid, asked 500 at a time (SQLite's
 * parameter limit): what cardLengths.ts and commonTerms.ts read again for
 * the rows a batch changed. `from`: the columns and table, as in
 * `docid, size FROM notes_fts_docsize`.
 */
export function rowsByDocid<T>(store: Pick<Store, 'all'>, from: string, docids: readonly number[]): T[] {
  const out: T[] = [];
  for (let at = 0; at < docids.length; at += 500) {
    const chunk = docids.slice(at, at + 500);
    out.push(...store.all<T>(`SELECT ${from} WHERE docid IN (${chunk.map(() => '?').join(',')})`, chunk));
  }
  return out;
}
