import { rmSync } from 'node:fs';
import { conflict } from '../../errors';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import type { PageCache } from '../../ground/cache/pageCache';
import type { BookTextIndex } from '../../ground/search/bookTextIndex';
import { removeReaderPicture } from '../../ground/cache/readerPictures';
import type { BridgeConfig } from '../../config';
import type { DocumentCatalogue } from './documentCatalogue';
import type { ExtractionScheduler } from './extractionScheduler';

/** What deleting a document touches. */
export interface DocumentDeleteDeps {
  documents: DocumentCatalogue;
  extraction: Pick<ExtractionScheduler, 'stop'>;
  pool: Pick<ExtractionPool, 'forget'>;
  pageCache: Pick<PageCache, 'remove'>;
  bookIndex: Pick<BookTextIndex, 'removeBook'>;
  config: Pick<BridgeConfig, 'dataDir'>;
}

/**
 * Deletes a document no card is anchored to: its extraction stops, its rows
 * go (a study set that lost its main document promotes the next one), then
 * its caches (pages, text index, the reader's picture) and its PDF.
 */
export async function deleteDocument(deps: DocumentDeleteDeps, bookmd5: string) {
  const { documents, extraction, pool, pageCache } = deps;
  const store = documents.store;
  const row = documents.get(bookmd5);
  // Hidden cards count too: a set deleted with keepHighlights keeps its highlights on this book.
  const anchored = store.get<{ n: number; hidden: number }>(
    'SELECT count(*) AS n, coalesce(sum(hidden), 0) AS hidden FROM notes WHERE source_bookmd5 = ?',
    [bookmd5],
  ) ?? { n: 0, hidden: 0 };
  if (anchored.n > 0) {
    const kept = anchored.hidden
      ? ` (${anchored.hidden} of them hidden: highlights kept by deleted study sets or review cards; delete such a set with keepHighlights:false to release them)`
      : '';
    throw conflict(
      'DOCUMENT_IN_USE',
      `${anchored.n} card(s) are anchored to this document${kept}; remove them (or the document from their study sets) first.`,
      {
        anchoredCards: anchored.n,
        hiddenAnchoredCards: anchored.hidden,
      },
    );
  }
  await extraction.stop(bookmd5);
  const sets = store
    .all<{ topicid: string }>('SELECT topicid FROM topic_documents WHERE bookmd5 = ?', [bookmd5])
    .map((r) => r.topicid);
  await store.write((tx) => {
    for (const t of ['page_parts', 'topic_documents', 'documents'])
      tx.run(`DELETE FROM ${t} WHERE bookmd5 = ?`, [bookmd5]);
    // A set that lost its main document promotes the next one.
    for (const topicid of sets) {
      if (!tx.get('SELECT 1 FROM topic_documents WHERE topicid = ? AND is_main = 1', [topicid])) {
        tx.run(
          'UPDATE topic_documents SET is_main = 1 WHERE rowid = (SELECT rowid FROM topic_documents WHERE topicid = ? ORDER BY position LIMIT 1)',
          [topicid],
        );
      }
    }
  });
  void pool.forget(bookmd5);
  deps.bookIndex.removeBook(bookmd5);
  await pageCache.remove(bookmd5).catch(() => undefined);
  try {
    removeReaderPicture(deps.config.dataDir, bookmd5);
  } catch {
    /* swept at the next start */
  }
  let fileRemoved = true;
  let note: string | undefined;
  try {
    rmSync(documents.filePath(row), { force: true });
  } catch (e) {
    fileRemoved = false;
    note = `The library record is gone but the file could not be removed: ${(e as Error).message}`;
  }
  return {
    bookmd5,
    removed: true,
    partial: !fileRemoved,
    fileRemoved,
    removedFromStudySets: sets.length,
    ...(note ? { note } : {}),
  };
}
