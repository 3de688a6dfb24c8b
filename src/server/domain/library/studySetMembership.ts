import type { WriteTx } from '../../ground/store/store';

/**
 * Adds a document to a set inside the caller's transaction (upload with a
 * topicid uses it too); adding twice changes nothing. Returns whether it
 * became the set's main document.
 */
export function addDocumentToSetTx(tx: WriteTx, topicid: string, bookmd5: string, now: string): boolean {
  if (tx.get('SELECT 1 FROM topic_documents WHERE topicid = ? AND bookmd5 = ?', [topicid, bookmd5])) return false;
  const n = tx.get<{ n: number }>('SELECT count(*) AS n FROM topic_documents WHERE topicid = ?', [topicid])?.n ?? 0;
  const next =
    tx.get<{ p: number | null }>('SELECT max(position) + 1 AS p FROM topic_documents WHERE topicid = ?', [topicid])
      ?.p ?? 0;
  tx.run('INSERT INTO topic_documents(topicid, bookmd5, position, is_main, added_at) VALUES (?, ?, ?, ?, ?)', [
    topicid,
    bookmd5,
    next,
    n === 0 ? 1 : 0,
    now,
  ]);
  tx.run('UPDATE topics SET modified_at = ? WHERE topicid = ?', [now, topicid]);
  return n === 0;
}
