import type { Database } from 'sql.js';
import type { WriteTx } from './groupCommit';
import { migrations } from './schema';
import { queryAll } from './sqlite';

/** A value of the meta table, or undefined before the first migration made it. */
export function metaValue(db: Database, key: string): string | undefined {
  try {
    const res = db.exec('SELECT value FROM meta WHERE key = ?', [key]);
    return res[0]?.values[0]?.[0] as string | undefined;
  } catch {
    return undefined; // no meta table yet
  }
}

export const schemaVersionOf = (db: Database): number => Number(metaValue(db, 'schema_version') ?? 0);

/** Runs each migration newer than the database's schema_version, each as one journaled write. */
export async function runMigrations(db: Database, write: (fn: (tx: WriteTx) => void) => Promise<void>): Promise<void> {
  const hasMeta = queryAll(db, `SELECT name FROM sqlite_master WHERE type='table' AND name='meta'`)[0];
  const current = hasMeta ? schemaVersionOf(db) : 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    await write((tx) => {
      for (const stmt of splitStatements(m.sql)) tx.run(stmt);
      tx.run(`INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)`, [String(m.version)]);
    });
  }
}

/** Splits a migration script into statements (no semicolons inside our literals). */
function splitStatements(script: string): string[] {
  // Comments go first: one after a statement's `;` on its line would otherwise glue it to the next statement.
  return script
    .replace(/--.*$/gm, '')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}
