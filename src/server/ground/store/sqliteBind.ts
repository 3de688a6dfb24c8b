import type { Database, Statement } from 'sql.js';
import type { SqlParam } from './journal';
import { dbPointer, stmtPointer, type SqliteCApi } from './sqliteCApi';

/**
 * Runs a write statement with its parameters bound through SQLite's C API.
 * sql.js binds each string on its own: two JS passes over its characters, a
 * malloc, a free and a call into wasm per value (a 40,000-card Anki import
 * binds about a million: ~0.85 s of its ~6 s). Here one run's strings and
 * blobs are encoded natively into one buffer (Buffer.write), copied into
 * wasm memory once and bound from there: ~0.4 s less for that import.
 * The values SQLite stores are sql.js's: 32-bit integers as INTEGER, other
 * numbers as REAL, null as NULL (anything else is refused, as sql.js
 * refuses what it cannot bind). One difference: a lone UTF-16 surrogate becomes U+FFFD
 * (sql.js wrote its 3-byte WTF-8 form); every port refuses such text
 * before it is stored (422 UNSTORABLE_TEXT).
 */

const SQLITE_ROW = 100;
const SQLITE_DONE = 101;
const STATIC = 0;

let scratch = Buffer.allocUnsafe(1 << 16);

/** Where each string or blob went in the buffer: [offset, length] pairs, in parameter order. */
function encode(params: readonly SqlParam[]): { bytes: number; spans: number[] } {
  let room = 0;
  for (const v of params)
    if (typeof v === 'string') room += v.length * 3;
    else if (v instanceof Uint8Array) room += v.length;
  if (scratch.length < room) scratch = Buffer.allocUnsafe(room * 2);
  const spans: number[] = [];
  let at = 0;
  for (const v of params) {
    let n = -1;
    if (typeof v === 'string') n = scratch.write(v, at, 'utf8');
    else if (v instanceof Uint8Array) {
      scratch.set(v, at);
      n = v.length;
    }
    if (n < 0) continue;
    spans.push(at, n);
    at += n;
  }
  return { bytes: at, spans };
}

/** Runs `stmt` once with `params`; false if its pointer cannot be found (run it through sql.js then). */
export function runBound(api: SqliteCApi, db: Database, stmt: Statement, sql: string, params: readonly SqlParam[]) {
  const p = stmtPointer(api, stmt, sql);
  if (p === undefined) return false;
  const fail = () => new Error(api.UTF8ToString(api._sqlite3_errmsg(dbPointer(db))));
  api._sqlite3_reset(p);
  api._sqlite3_clear_bindings(p);
  const { bytes, spans } = encode(params);
  // Never a null pointer: SQLite binds NULL for one, where '' and an empty blob must stay themselves.
  const base = spans.length ? api._malloc(Math.max(bytes, 1)) : 0;
  if (spans.length && !base) throw new Error('out of memory');
  try {
    if (bytes) api.writeArrayToMemory(scratch.subarray(0, bytes), base);
    let s = 0;
    for (let i = 0; i < params.length; i++) {
      const v = params[i] as unknown;
      let rc: number;
      if (typeof v === 'string') {
        rc = api._sqlite3_bind_text(p, i + 1, base + spans[s], spans[s + 1], STATIC);
        s += 2;
      } else if (v instanceof Uint8Array) {
        rc = api._sqlite3_bind_blob(p, i + 1, base + spans[s], spans[s + 1], STATIC);
        s += 2;
      } else if (typeof v === 'number')
        rc = v === (v | 0) ? api._sqlite3_bind_int(p, i + 1, v) : api._sqlite3_bind_double(p, i + 1, v);
      else if (v === null) rc = api._sqlite3_bind_blob(p, i + 1, 0, 0, STATIC);
      else throw new Error(`Wrong API use : tried to bind a value of an unknown type (${typeof v}).`);
      if (rc !== 0) throw fail();
    }
    const rc = api._sqlite3_step(p);
    if (rc !== SQLITE_ROW && rc !== SQLITE_DONE) throw fail();
  } finally {
    api._sqlite3_reset(p);
    api._sqlite3_clear_bindings(p);
    if (base) api._free(base);
  }
  return true;
}
