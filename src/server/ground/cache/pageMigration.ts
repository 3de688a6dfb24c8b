import * as path from 'node:path';
import type { Store } from '../store/store';
import { decodeItems, encodeItems } from './storedPageCodec';
import { replaceDurablyAsync } from '../store/durableFiles';
import { buildPagesFile, encodeOutline, packPage } from './pageFile';

interface LegacyPage {
  page: number;
  text: string;
  items: string | Uint8Array | null;
  blocks: string | null;
  width: number | null;
  height: number | null;
  ocr: number;
}

/**
 * Moves what data dirs from before the page cache (test/api/pageCache.test.ts) hold in library.db into the page
 * cache: each document's `pages` rows become its `pages.pc` (packed items kept
 * as they are, older JSON items re-packed, stored blocks kept) and
 * `outline_original` its `outline.pc`; then the moved rows (and `pages_fts`)
 * are deleted in one write. Idempotent: a crash before that write just
 * redoes the files on the next start; with nothing left to move it costs two
 * lookups.
 */
export async function migratePagesToCache(
  store: Store,
  dataDir: string,
): Promise<{ documents: number; pages: number }> {
  const dir = path.join(dataDir, 'cache', 'pages');
  const books = store.all<{ bookmd5: string }>('SELECT DISTINCT bookmd5 FROM pages').map((r) => r.bookmd5);
  const outlines = store.all<{ bookmd5: string; outline_original: string }>(
    'SELECT bookmd5, outline_original FROM documents WHERE outline_original IS NOT NULL',
  );
  if (!books.length && !outlines.length) return { documents: 0, pages: 0 };
  let moved = 0;
  for (const bookmd5 of books) {
    if (!/^[0-9a-f]{32}$/.test(bookmd5)) continue; // never a path outside the cache
    const rows = store.all<LegacyPage>(
      'SELECT page, text, items, blocks, width, height, ocr FROM pages WHERE bookmd5 = ? ORDER BY page',
      [bookmd5],
    );
    const packed = rows.map((r) =>
      packPage({
        page: r.page,
        text: r.text ?? '',
        items:
          r.items == null ? encodeItems([]) : typeof r.items === 'string' ? encodeItems(decodeItems(r.items)) : r.items,
        blocks: r.blocks,
        width: r.width ?? NaN,
        height: r.height ?? NaN,
        ocr: r.ocr ?? 0,
      }),
    );
    await replaceDurablyAsync(path.join(dir, bookmd5, 'pages.pc'), buildPagesFile(packed));
    moved += rows.length;
  }
  for (const o of outlines) {
    if (!/^[0-9a-f]{32}$/.test(o.bookmd5)) continue;
    await replaceDurablyAsync(
      path.join(dir, o.bookmd5, 'outline.pc'),
      encodeOutline(JSON.parse(o.outline_original) as Parameters<typeof encodeOutline>[0]),
    );
  }
  const fts = !!store.get(`SELECT 1 FROM sqlite_master WHERE name = 'pages_fts'`);
  await store.write((tx) => {
    tx.run('DELETE FROM pages');
    if (fts) tx.run('DELETE FROM pages_fts');
    tx.run('UPDATE documents SET outline_original = NULL WHERE outline_original IS NOT NULL');
  });
  return { documents: books.length, pages: moved };
}
