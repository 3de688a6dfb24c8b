import type { Store } from '../store/store';

/**
 * Data dirs from before issue 10 hold every page's text a second time in
 * `pages_fts`; page search now reads the book text index, so the rows go
 * (the index files are rebuilt from the page cache by BookTextIndex.open).
 * Idempotent: an empty table is left alone.
 */
export async function clearPagesFts(store: Store): Promise<boolean> {
  const table = store.get<{ n: number }>(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'pages_fts'`)!.n;
  if (!table || !store.get('SELECT 1 FROM pages_fts LIMIT 1')) return false;
  await store.write((tx) => tx.run('DELETE FROM pages_fts'));
  return true;
}
