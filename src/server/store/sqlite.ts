import { existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

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
