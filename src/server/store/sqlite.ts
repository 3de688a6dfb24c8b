import { existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import type { SqlParam } from './journal';

let engine: Promise<SqlJsStatic> | undefined;

/** The wasm sits beside the bundle in dist/, or in node_modules when run from source. */
function wasmPath(): string {
  const bundled = join(__dirname, 'sql-wasm.wasm');
  return existsSync(bundled) ? bundled : require.resolve('sql.js/dist/sql-wasm.wasm');
}

/** sql.js, loaded once per process. */
export function loadSqlite(): Promise<SqlJsStatic> {
  engine ??= initSqlJs({ locateFile: () => wasmPath() });
  return engine;
}

/** Every row of a query, as objects (the store's reads and a write's reads share it). */
export function queryAll<T>(db: Database, sql: string, params: SqlParam[] = []): T[] {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const rows: T[] = [];
    while (stmt.step()) rows.push(stmt.getAsObject() as T);
    return rows;
  } finally {
    stmt.free();
  }
}
