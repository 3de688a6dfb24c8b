import { existsSync } from 'node:fs';
import { notFound } from '../../errors';
import type { Store } from '../../ground/store/store';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import { nowIso } from '../library/ids';
import { addDocumentToSetTx } from '../library/studySetMembership';
import type { SnapshotFiles } from './snapshotFiles';
import { takeSnapshotTx } from './snapshots';
import type { StudySets } from '../library/studySets';
import { dropSetAnchors } from './rows/cardRowsEdit';

interface MemberRow {
  bookmd5: string;
  position: number;
  is_main: number;
  added_at: string;
  filename: string;
  folder: string;
  page_count: number;
  extraction_state: string;
}

/** Which documents a study set reads from: one main document, the rest its booklist. */
export class StudySetDocuments {
  constructor(
    private readonly store: Store,
    private readonly sets: StudySets,
    private readonly documents: DocumentCatalogue,
    private readonly snapshotFiles: SnapshotFiles,
  ) {}

  list(topicid: string) {
    this.sets.get(topicid);
    const rows = this.store.all<MemberRow>(
      `SELECT m.bookmd5, m.position, m.is_main, m.added_at, d.filename, d.folder, d.page_count, d.extraction_state
       FROM topic_documents m JOIN documents d ON d.bookmd5 = m.bookmd5 WHERE m.topicid = ? ORDER BY m.is_main DESC, m.position`,
      [topicid],
    );
    const documents = rows.map((r) => ({
      bookmd5: r.bookmd5,
      filename: r.filename,
      folder: r.folder,
      isMain: r.is_main === 1,
      sourceState: existsSync(this.documents.filePath(r)) ? 'normal' : 'missing_file',
      pageCount: r.page_count,
      extractionState: r.extraction_state,
      addedAt: r.added_at,
    }));
    return {
      topicid,
      documents,
      mainDocument: documents.find((d) => d.isMain)?.bookmd5 ?? null,
      count: documents.length,
    };
  }

  /** The first document becomes the main one; later ones join the booklist; adding twice changes nothing. */
  async add(topicid: string, bookmd5: string) {
    this.sets.get(topicid);
    this.documents.get(bookmd5);
    if (this.store.get('SELECT 1 FROM topic_documents WHERE topicid = ? AND bookmd5 = ?', [topicid, bookmd5])) {
      return { topicid, bookmd5, alreadyPresent: true, becameMainDocument: false, addedToBooklist: false };
    }
    const becameMain = await this.store.write((tx) => addDocumentToSetTx(tx, topicid, bookmd5, nowIso()));
    return { topicid, bookmd5, alreadyPresent: false, becameMainDocument: becameMain, addedToBooklist: !becameMain };
  }

  /** What removing would do: the cards losing their source link and the next main document. */
  previewRemove(topicid: string, bookmd5: string) {
    this.sets.get(topicid);
    const member = this.store.get<{ is_main: number }>(
      'SELECT is_main FROM topic_documents WHERE topicid = ? AND bookmd5 = ?',
      [topicid, bookmd5],
    );
    if (!member)
      throw notFound(
        'DOCUMENT_NOT_FOUND',
        `Document ${bookmd5} is not in study set ${topicid}. GET /study-sets/${topicid}/documents lists them.`,
      );
    const notesLosingSource = this.store
      .all<{ noteid: string }>('SELECT noteid FROM notes WHERE topicid = ? AND source_bookmd5 = ? ORDER BY noteid', [
        topicid,
        bookmd5,
      ])
      .map((r) => r.noteid);
    const next = member.is_main
      ? (this.store.get<{ bookmd5: string }>(
          'SELECT bookmd5 FROM topic_documents WHERE topicid = ? AND bookmd5 <> ? ORDER BY position LIMIT 1',
          [topicid, bookmd5],
        )?.bookmd5 ?? null)
      : (this.store.get<{ bookmd5: string }>('SELECT bookmd5 FROM topic_documents WHERE topicid = ? AND is_main = 1', [
          topicid,
        ])?.bookmd5 ?? null);
    return {
      wouldRemove: bookmd5,
      wasMainDocument: member.is_main === 1,
      notesLosingSource,
      newMainDocumentAfter: next,
    };
  }

  /** Snapshot first, then unlink the anchored cards, remove the entry and promote a new main document. */
  async remove(topicid: string, bookmd5: string) {
    const plan = this.previewRemove(topicid, bookmd5);
    const now = nowIso();
    const preRemoveSnapshotId = await this.store.write((tx) => {
      const snap = takeSnapshotTx(tx, this.snapshotFiles, topicid, `Before removing document ${bookmd5}`, now);
      dropSetAnchors(tx, topicid, bookmd5, now);
      tx.run('DELETE FROM topic_documents WHERE topicid = ? AND bookmd5 = ?', [topicid, bookmd5]);
      if (plan.wasMainDocument && plan.newMainDocumentAfter) {
        tx.run('UPDATE topic_documents SET is_main = 1 WHERE topicid = ? AND bookmd5 = ?', [
          topicid,
          plan.newMainDocumentAfter,
        ]);
      }
      tx.run('UPDATE topics SET modified_at = ? WHERE topicid = ?', [now, topicid]);
      return snap;
    });
    const warnings = plan.notesLosingSource.length
      ? [`${plan.notesLosingSource.length} card(s) lost their source link; the document stays in the library.`]
      : [];
    return {
      topicid,
      bookmd5,
      removed: true,
      preRemoveSnapshotId,
      notesLosingSource: plan.notesLosingSource,
      newMainDocument: plan.wasMainDocument ? plan.newMainDocumentAfter : undefined,
      placeholder: plan.newMainDocumentAfter === null,
      warnings,
    };
  }
}
