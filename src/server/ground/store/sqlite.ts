import { existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type Database, type SqlJsStatic, type Statement } from 'sql.js';
import type { SqlParam } from './journal';
import { runBound } from './sqliteBind';
import { cApiOf, type SqliteCApi } from './sqliteCApi';

let engine: Promise<SqlJsStatic> | undefined;
/** SQLite's C functions, once sql.js is loaded (sqliteCApi.ts). */
let cApi: SqliteCApi | undefined;

/** The wasm sits beside the bundle in dist/, or in node_modules when run from source. */
function wasmPath(): string {
  const bundled = join(__dirname, 'sql-wasm.wasm');
  return existsSync(bundled) ? bundled : require.resolve('sql.js/dist/sql-wasm.wasm');
}

/** sql.js, loaded once per process. */
export function loadSqlite(): Promise<SqlJsStatic> {
  engine ??= initSqlJs({ locateFile: () => wasmPath() }).then((SQL) => {
    cApi = cApiOf(SQL);
    return SQL;
  });
  return engine;
}

/**
 * The library's database in sql.js's memory (the store's, and a checkpoint replica's), set up for the one
 * connection it has:
 * - SQLite's rollback journal is kept in its heap (journal_mode MEMORY), not written to a file of sql.js's
 *   in-memory file system and deleted at every commit (200 UPDATEs of a bare table in one transaction:
 *   3.8 → 2.6 ms). The database itself is memory too, so a crash loses both either way; durability is
 *   library.journal's (docs/ARCHITECTURE.md). ROLLBACK and savepoints work as before.
 * - The lock is taken once and kept (locking_mode EXCLUSIVE): no other connection exists, and a query
 *   outside a transaction no longer locks, looks for a hot journal and unlocks (200 point reads, each its
 *   own transaction: 9.7 → 2.4 ms).
 * At 100k cards, a 200-card metadata edit went 14.5 → 13.1 ms with both (store alone, A/B in one process).
 */
export async function openDatabase(bytes?: Uint8Array): Promise<Database> {
  const SQL = await loadSqlite();
  const db = new SQL.Database(withRoom(bytes ?? emptyImage(SQL)));
  db.exec('PRAGMA journal_mode=MEMORY; PRAGMA locking_mode=EXCLUSIVE');
  return db;
}

/**
 * Room for the database file to grow. sql.js keeps the file in one array that
 * it copies into a new one 1/8 larger whenever a page lands past its end, so
 * a write that adds 130 MB (a 40,000-card import) allocated, touched and
 * copied some 1.2 GB (11 s of its 26 s CPU). sql.js copies the bytes it is
 * opened with by `slice`, which makes its result through Symbol.species: this
 * one allocates the file's array with room to spare. Untouched room is
 * zero pages the system has not handed out (not resident); past it, sql.js
 * grows the array as before.
 */
const ROOM_BYTES = 256 * 1024 * 1024;

function RoomyArray(length: number): Uint8Array {
  try {
    return new Uint8Array(length + ROOM_BYTES);
  } catch {
    return new Uint8Array(length);
  }
}

class RoomyImage extends Uint8Array {
  static get [Symbol.species](): Uint8ArrayConstructor {
    return RoomyArray as unknown as Uint8ArrayConstructor;
  }
}

const withRoom = (bytes: Uint8Array) => new RoomyImage(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);

/** A new database's file (its first page), so that a new library starts with the room too. */
function emptyImage(SQL: SqlJsStatic): Uint8Array {
  const scratch = new SQL.Database();
  try {
    return scratch.export();
  } finally {
    scratch.close();
  }
}

/**
 * Prepared statements kept per database, by SQL text: preparing costs more
 * than running a point query, and a 200-card write runs the same UPDATE 200
 * times. Bounded (SQL with an inlined id list varies), least recently used
 * dropped first. SQLite re-prepares a kept statement after a schema change.
 */
const MAX_CACHED = 256;
const caches = new WeakMap<Database, Map<string, Statement>>();

function cached(db: Database, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map<string, Statement>()));
  let stmt = cache.get(sql);
  if (stmt) {
    cache.delete(sql); // re-inserted below: most recently used last
  } else {
    stmt = db.prepare(sql);
    if (cache.size >= MAX_CACHED) {
      const [oldest, old] = cache.entries().next().value!;
      cache.delete(oldest);
      old.free();
    }
  }
  cache.set(sql, stmt);
  return stmt;
}

/** Every row of a query, as objects (the store's reads and a write's reads share it). */
export function queryAll<T>(db: Database, sql: string, params: SqlParam[] = []): T[] {
  const stmt = cached(db, sql);
  try {
    stmt.bind(params);
    const rows: T[] = [];
    readRows(stmt, rows, Infinity);
    return rows;
  } finally {
    stmt.reset();
  }
}

/**
 * Every row of a query, yielding every `every` rows (writeSteps.ts): for a
 * database only its caller uses meanwhile (an Anki package's collection),
 * read in slices of the event loop. The statement is its own, not cached.
 */
export function* queryAllSteps<T>(db: Database, sql: string, params: SqlParam[] = [], every = 500) {
  const stmt = db.prepare(sql);
  try {
    stmt.bind(params);
    const rows: T[] = [];
    while (readRows(stmt, rows, every)) yield;
    return rows;
  } finally {
    stmt.free();
  }
}

/** Up to `max` more rows of a bound statement into `rows`; true when there may be more. */
function readRows<T>(stmt: Statement, rows: T[], max: number): boolean {
  // Column names once per call (getAsObject asks for them on every row); not kept: a schema change can change `SELECT *`.
  let columns: string[] | undefined;
  for (let n = 0; n < max; n++) {
    if (!stmt.step()) return false;
    columns ??= stmt.getColumnNames();
    const values = stmt.get();
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]] = values[i];
    rows.push(row as T);
  }
  return true;
}

/** sql.js's C API where it has one (sqliteCApi.ts). */
export const sqliteCApi = (): SqliteCApi | undefined => cApi;

/** Runs one statement (a write's UPDATE or INSERT) through the same cache, its parameters bound by sqliteBind.ts. */
export function runStatement(db: Database, sql: string, params: SqlParam[]): void {
  const stmt = cached(db, sql);
  if (cApi && runBound(cApi, db, stmt, sql, params)) return;
  try {
    stmt.run(params);
  } finally {
    stmt.reset();
  }
}
