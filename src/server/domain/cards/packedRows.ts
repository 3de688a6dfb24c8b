import type { Db } from './noteRows';

/**
 * Rows packed by SQLite as one JSON array of arrays: sql.js builds a JS value
 * per row and column through the WebAssembly boundary, which at 200 cards
 * costs more than the query itself and at a 10k-card tree ~40 % of it; one
 * string parses fast. `from` is a table with its WHERE, or a sub-query.
 */
export function packedRows<T extends unknown[]>(db: Db, columns: string, from: string, params: string[]): T[] {
  const r = db.get<{ j: string }>(
    `SELECT json_group_array(json_array(${columns})) AS j FROM (SELECT ${columns} FROM ${from})`,
    params,
  );
  return JSON.parse(r?.j ?? '[]') as T[];
}
