import { existsSync } from 'node:fs';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import { assertStudySet } from '../library/studySets';
import type { Db } from './noteRows';

interface Row {
  bookmd5: string;
  is_main: number | null;
  is_member: number;
  anchored: number;
  filename: string | null;
  folder: string | null;
  page_count: number | null;
}

/**
 * GET /study-sets/{id}/notebooks: the documents a set references, its members
 * (main first, then the booklist) and then any other document its visible
 * cards are anchored to. A document whose file (or library record) is gone
 * reads sourceState missing_file.
 */
export function readNotebooks(db: Db, documents: Pick<DocumentCatalogue, 'filePath'>, topicid: string) {
  assertStudySet(db, topicid);
  const rows = db.all<Row>(
    `WITH anchored AS (SELECT source_bookmd5 AS bookmd5, count(*) AS c FROM notes WHERE topicid = ? AND hidden = 0 AND source_bookmd5 IS NOT NULL GROUP BY source_bookmd5),
     refs AS (SELECT bookmd5, is_main, position, 1 AS is_member FROM topic_documents WHERE topicid = ?
              UNION ALL SELECT bookmd5, NULL, NULL, 0 FROM anchored WHERE bookmd5 NOT IN (SELECT bookmd5 FROM topic_documents WHERE topicid = ?))
     SELECT r.bookmd5, r.is_main, r.is_member, COALESCE(a.c, 0) AS anchored, d.filename, d.folder, d.page_count
     FROM refs r LEFT JOIN anchored a ON a.bookmd5 = r.bookmd5 LEFT JOIN documents d ON d.bookmd5 = r.bookmd5
     ORDER BY r.is_member DESC, r.is_main DESC, r.position, d.filename, r.bookmd5`,
    [topicid, topicid, topicid],
  );
  const notebooks = rows.map((r) => ({
    bookmd5: r.bookmd5,
    filename: r.filename,
    isMain: r.is_main === 1,
    isMember: r.is_member === 1,
    anchoredCardCount: r.anchored,
    pageCount: r.page_count,
    sourceState:
      r.filename !== null && existsSync(documents.filePath({ folder: r.folder ?? '', filename: r.filename }))
        ? 'normal'
        : 'missing_file',
  }));
  return { topicid, notebooks, count: notebooks.length };
}
