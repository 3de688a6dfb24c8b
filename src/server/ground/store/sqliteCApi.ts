import type { Database, SqlJsStatic, Statement } from 'sql.js';

/**
 * The C functions of SQLite that sql.js exports beside its own API, for the
 * hot path its wrapper makes costly per value: binding a write's parameters
 * (sqliteBind.ts). Where a build of sql.js lacks them, sql.js's API is used.
 */
export interface SqliteCApi {
  _malloc(n: number): number;
  _free(p: number): void;
  _sqlite3_bind_text(stmt: number, i: number, p: number, n: number, destructor: number): number;
  _sqlite3_bind_blob(stmt: number, i: number, p: number, n: number, destructor: number): number;
  _sqlite3_bind_int(stmt: number, i: number, v: number): number;
  _sqlite3_bind_double(stmt: number, i: number, v: number): number;
  _sqlite3_step(stmt: number): number;
  _sqlite3_reset(stmt: number): number;
  _sqlite3_clear_bindings(stmt: number): number;
  _sqlite3_sql(stmt: number): number;
  _sqlite3_errmsg(db: number): number;
  UTF8ToString(p: number): string;
  writeArrayToMemory(bytes: Uint8Array, p: number): void;
}

const NEEDED: ReadonlyArray<keyof SqliteCApi> = [
  '_malloc',
  '_free',
  '_sqlite3_bind_text',
  '_sqlite3_bind_blob',
  '_sqlite3_bind_int',
  '_sqlite3_bind_double',
  '_sqlite3_step',
  '_sqlite3_reset',
  '_sqlite3_clear_bindings',
  '_sqlite3_sql',
  '_sqlite3_errmsg',
  'UTF8ToString',
  'writeArrayToMemory',
];

/** sql.js's module as the C API, if it exports every function used here. */
export function cApiOf(SQL: SqlJsStatic): SqliteCApi | undefined {
  const m = SQL as unknown as Record<string, unknown>;
  return NEEDED.every((k) => typeof m[k] === 'function') ? (SQL as unknown as SqliteCApi) : undefined;
}

/** A database's sqlite3* (sql.js keeps it as `db`). */
export const dbPointer = (db: Database): number => (db as unknown as { db: number }).db;

let stmtKey: string | undefined | null = null;

/**
 * A statement's sqlite3_stmt*. sql.js keeps it under a minified name, so the
 * name is found once: the numeric field that SQLite answers with the
 * statement's own SQL. Undefined if none does (then sql.js's API is used).
 */
export function stmtPointer(api: SqliteCApi, stmt: Statement, sql: string): number | undefined {
  if (stmtKey === null) {
    stmtKey = undefined;
    for (const [k, v] of Object.entries(stmt))
      if (typeof v === 'number' && v > 8 && Number.isInteger(v)) {
        try {
          if (api.UTF8ToString(api._sqlite3_sql(v)) === sql) stmtKey = k;
        } catch {
          // not a statement's pointer: reading it trapped
        }
        if (stmtKey) break;
      }
  }
  return stmtKey ? (stmt as unknown as Record<string, number>)[stmtKey] : undefined;
}
