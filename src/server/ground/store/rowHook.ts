import type { Database } from 'sql.js';
import { dbPointer, type SqliteCApi } from './sqliteCApi';

/**
 * SQLite's update hook (every row a write inserts, updates or deletes), for
 * RowChanges. sql.js's own hook decodes the database's and the table's names
 * from wasm memory for every row: a 40,000-card Anki import changes about
 * half a million rows, ~0.25 s of it. This one goes through the C API and
 * decodes a table's name once, by the name's address, until the schema may
 * have changed: a table dropped or renamed frees its name, and a rollback
 * can reload the whole schema, so every exec (BEGIN, COMMIT, ROLLBACK…) and
 * every DDL statement run (sqlite.ts) forget the names.
 */

const caches = new WeakMap<Database, Map<number, string>>();

/**
 * Off for now on every Node: Node 20 (V8 11.3) segfaulted with it under its
 * CPU profiler (3 of 28 40,000-card imports with --cpu-prof, 0 of 25 with
 * sql.js's hook), and in VS Code 1.103 (Node 22) the Import Highlights test
 * twice did not see its cards in the tree, under load, with it on. Until
 * that is understood, sql.js's hook tells the changes everywhere; the C path
 * stays tested (sqliteCApi.test.ts) by turning it on there.
 */
let cHookOn = false;
/** For the test of the C path only. */
export const useCHook = (on: boolean) => {
  cHookOn = on;
};

/** Calls `fn` for each row a statement on `db` changes; `api` undefined (or the C hook off): through sql.js's own hook. */
export function onRowChange(
  db: Database,
  api: SqliteCApi | undefined,
  fn: (table: string, rowid: number) => void,
): void {
  if (!api || !cHookOn) {
    db.updateHook((_op, _dbName, table, rowid) => fn(table, rowid));
    return;
  }
  const names = new Map<number, string>();
  caches.set(db, names);
  const hook = api.addFunction((_arg: number, _op: number, _dbName: number, table: number, rowid: bigint | number) => {
    let name = names.get(table);
    if (name === undefined) names.set(table, (name = api.UTF8ToString(table)));
    fn(name, Number(rowid));
  }, 'viiiij');
  api._sqlite3_update_hook(dbPointer(db), hook, 0);
  const exec = db.exec.bind(db);
  db.exec = (sql, params) => {
    names.clear();
    try {
      return exec(sql, params);
    } finally {
      names.clear();
    }
  };
  // The hook's slot in wasm's function table holds `fn` (and so the store): freed with the database.
  const close = db.close.bind(db);
  db.close = () => {
    api._sqlite3_update_hook(dbPointer(db), 0, 0);
    api.removeFunction(hook);
    close();
  };
}

/** After a statement that may have dropped, renamed or created a table. */
export function schemaMayHaveChanged(db: Database): void {
  caches.get(db)?.clear();
}
