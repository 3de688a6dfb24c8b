import { newIds } from '../../library/ids';
import type { SqlParam } from '../../../ground/store/journal';
import type { WriteTx } from '../../../ground/store/store';
import { drained, type WriteSteps } from '../../../ground/store/writeSteps';
import { insertMany, insertManySteps } from '../../cards/rows/cardRowsBatch';

/**
 * Bulk statements for imports of thousands of rows: one multi-row statement
 * per chunk instead of one statement per row, since each statement sql.js
 * runs (and the journal records) costs far more than a row does. Each
 * has a form that yields after every statement (writeSteps.ts), for an
 * import written in slices of the event loop.
 */

/**
 * `n` new ids in ascending order. Rows keyed by random ids land on random
 * pages of each index, so a large import keeps re-reading and re-writing
 * pages SQLite's small cache has already let go; rows inserted in key order
 * fill each page once.
 */
export const ascendingIds = (n: number): string[] => newIds(n).sort();

/** Rows ordered by their first value (a key): inserted in key order, as above. */
export const byKey = <T extends SqlParam[]>(rows: T[]): T[] =>
  rows.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));

const CHUNK_ROWS = 200;

/** `INSERT … VALUES (…),(…)` of `rows` (each the same width) in chunks, a value shared by a column bound once. */
export const insertRows = insertMany;
export const insertRowsSteps = insertManySteps;

/** Runs `sql` with `$IN` replaced by a placeholder list, once per chunk of `ids` (after `before` params). */
export function* runForIds(
  tx: WriteTx,
  sql: string,
  ids: readonly string[],
  before: SqlParam[] = [],
): WriteSteps<void> {
  for (let i = 0; i < ids.length; i += CHUNK_ROWS * 2) {
    const chunk = ids.slice(i, i + CHUNK_ROWS * 2);
    tx.run(sql.replace('$IN', `(${chunk.map(() => '?').join(',')})`), [...before, ...chunk]);
    yield;
  }
}

/** Reads rows for `ids` (`$IN` as above), chunk by chunk. */
export function allForIds<T>(
  tx: Pick<WriteTx, 'all'>,
  sql: string,
  ids: readonly string[],
  before: SqlParam[] = [],
): T[] {
  return drained(allForIdsSteps<T>(tx, sql, ids, before));
}

/** allForIds, yielding after each statement. */
export function* allForIdsSteps<T>(
  tx: Pick<WriteTx, 'all'>,
  sql: string,
  ids: readonly string[],
  before: SqlParam[] = [],
): WriteSteps<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK_ROWS * 2) {
    const chunk = ids.slice(i, i + CHUNK_ROWS * 2);
    for (const row of tx.all<T>(sql.replace('$IN', `(${chunk.map(() => '?').join(',')})`), [...before, ...chunk]))
      out.push(row);
    yield;
  }
  return out;
}

/**
 * `UPDATE table SET col = v.col, … WHERE key = v.key` for many rows at once:
 * the new values ride in a VALUES list (`rows[i][0]` is the key).
 */
export function* updateRows(
  tx: WriteTx,
  table: string,
  key: string,
  cols: readonly string[],
  rows: readonly SqlParam[][],
): WriteSteps<void> {
  if (!rows.length) return;
  const one = `(${[key, ...cols].map(() => '?').join(',')})`;
  const names = ['k', ...cols.map((_, i) => `c${i}`)].join(', ');
  const sets = cols.map((c, i) => `${c} = (SELECT c${i} FROM v WHERE v.k = ${table}.${key})`).join(', ');
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    const chunk = rows.slice(i, i + CHUNK_ROWS);
    tx.run(
      `WITH v(${names}) AS (VALUES ${chunk.map(() => one).join(',')}) UPDATE ${table} SET ${sets} WHERE ${key} IN (SELECT k FROM v)`,
      chunk.flat(),
    );
    yield;
  }
}
