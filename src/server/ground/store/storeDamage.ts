import { join } from 'node:path';
import { BridgeError } from '../../errors';

// SQLite's own words for a file it cannot read as a database (SQLITE_CORRUPT, SQLITE_NOTADB).
const DAMAGE = /database disk image is malformed|file is not a database/;

/**
 * Opening the library when library.db itself is damaged (a disk fault, a copy cut short, another program's write):
 * one clear refusal naming the file and what to do, instead of SQLite's words and a stack. Nothing was changed by
 * the failed start. Other errors are passed on as they are.
 */
export function storeDamage(cause: unknown, dataDir: string): unknown {
  const said = (cause as Error)?.message ?? '';
  if (!DAMAGE.test(said)) return cause;
  const db = join(dataDir, 'library.db');
  return new BridgeError(
    'STORE_DAMAGED',
    500,
    `${db} is damaged (SQLite: ${said}); the bridge did not start and changed nothing. Move library.db and ` +
      'library.journal aside (keep them: `sqlite3 library.db .recover` often gets most rows back) and start ' +
      'again with an empty library, or put back a copy from a backup.',
    { file: db, sqlite: said },
  );
}
