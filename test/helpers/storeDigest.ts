import { createHash } from 'node:crypto';
import type { Store } from '../../src/server/ground/store/store';

/** A hash of every row of each table, `table=hash` per table: equal digests = nothing changed, and a diff names the table that did. */
export function storeDigest(store: Store): string {
  const tables = store
    .all<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts_%' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    )
    .map((r) => r.name);
  const parts: string[] = [];
  for (const t of tables) {
    const h = createHash('sha256');
    // Not library content: the checkpoint's bookkeeping (meta.journal_seq) moves on an idle checkpoint, and the
    // legacy-sync log (sync_events, meta sync_*) records what the file watcher observes on disk, on its own clock.
    if (t === 'sync_events') continue;
    const where = t === 'meta' ? ` WHERE key <> 'journal_seq' AND substr(key, 1, 5) <> 'sync_'` : '';
    // A token's last use is bookkeeping too (kept in memory, saved with the next registry write or at close).
    const skip = t === 'agent_tokens' ? 'last_used_at' : undefined;
    for (const row of store.all<Record<string, unknown>>(`SELECT * FROM "${t}"${where} ORDER BY rowid`)) {
      if (skip) delete row[skip];
      h.update(JSON.stringify(row, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)));
    }
    parts.push(`${t}=${h.digest('hex').slice(0, 16)}`);
  }
  return parts.join('\n');
}
