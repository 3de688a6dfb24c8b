import { conflict, notFound } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store, WriteTx } from '../../ground/store/store';
import { purgeNotes, recordOperation } from './noteRows';
import { hideSetCards } from './rows/cardRowsEdit';
import type { SnapshotFiles } from './snapshotFiles';
import { writeSnapshotTx } from './snapshots';

export interface DeleteSetOptions {
  expectedTitle: string;
  keepHighlights: boolean;
  keepSnapshotHistory: boolean;
  actor: Actor;
}

interface Warning {
  code: string;
  message: string;
}

/**
 * Removes a study set or a review deck from the library, in one transaction.
 * Conservative by default: the topic and its cards are hidden (excerpt
 * anchors stay, so its books still count as annotated) and dropped from
 * search. keepHighlights:false removes the cards, the document list, a deck's
 * review cards and the topic row for good.
 */
export async function deleteStudySet(store: Store, files: SnapshotFiles, topicid: string, opts: DeleteSetOptions) {
  let droppedHashes: string[] = [];
  const result = await store.write((tx) => {
    const topic = checkedTopic(tx, topicid, opts.expectedTitle);
    const now = nowIso();
    const warnings: Warning[] = [];
    const preDeleteSnapshotId = opts.keepSnapshotHistory
      ? writeSnapshotTx(tx, files, topicid, 'pre_delete', `Before deleting "${topic.title}"`, now).snapshotId
      : null;
    const noteIds = tx
      .all<{ noteid: string }>('SELECT noteid FROM notes WHERE topicid = ? AND hidden = 0', [topicid])
      .map((r) => r.noteid);
    const reviewCards =
      tx.get<{ n: number }>('SELECT count(*) AS n FROM deck_cards WHERE deck_id = ?', [topicid])?.n ?? 0;
    if (!opts.keepSnapshotHistory) {
      droppedHashes = tx
        .all<{ h: string }>('SELECT DISTINCT content_hash AS h FROM snapshots WHERE topicid = ?', [topicid])
        .map((r) => r.h);
      tx.run('DELETE FROM snapshots WHERE topicid = ?', [topicid]);
      warnings.push({
        code: 'SNAPSHOT_HISTORY_DELETED',
        message:
          'keepSnapshotHistory:false: no pre-delete snapshot was kept and the earlier snapshots were deleted, so preDeleteSnapshotId is null.',
      });
    }

    if (opts.keepHighlights) {
      hideSetCards(tx, topicid);
      tx.run('UPDATE topics SET hidden = 1 WHERE topicid = ?', [topicid]);
      recordOperation(tx, { topicid, kind: 'delete-set', actor: opts.actor, noteIds, now });
      return {
        removedFromLibrary: true,
        topicid,
        kind: topic.kind,
        preDeleteSnapshotId,
        keepHighlights: true,
        cardsHidden: noteIds.length,
        ...(topic.kind === 'deck' ? { reviewCardsHidden: reviewCards } : {}),
        warnings,
      };
    }

    const allIds = tx
      .all<{ noteid: string }>('SELECT noteid FROM notes WHERE topicid = ?', [topicid])
      .map((r) => r.noteid);
    purgeNotes(tx, allIds);
    tx.run('DELETE FROM topic_documents WHERE topicid = ?', [topicid]);
    tx.run('DELETE FROM deck_cards WHERE deck_id = ?', [topicid]);
    tx.run('DELETE FROM operations WHERE topicid = ?', [topicid]);
    tx.run('DELETE FROM topics WHERE topicid = ?', [topicid]);
    if (preDeleteSnapshotId) {
      warnings.push({
        code: 'SET_REMOVED_FOR_GOOD',
        message: `The ${topic.kind === 'deck' ? 'deck' : 'study set'} and its cards were removed for good; snapshot ${preDeleteSnapshotId} keeps a copy of the cards, but no route restores into a deleted set.`,
      });
    }
    return {
      removedFromLibrary: true,
      topicid,
      kind: topic.kind,
      preDeleteSnapshotId,
      keepHighlights: false,
      cardsDeleted: noteIds.length,
      ...(topic.kind === 'deck' ? { reviewCardsDeleted: reviewCards } : {}),
      warnings,
    };
  });
  if (droppedHashes.length) removeUnreferenced(store, files, droppedHashes);
  return result;
}

/** The topic to delete, or 404 TOPIC_NOT_FOUND; 409 TITLE_MISMATCH unless `expectedTitle` is its title. */
function checkedTopic(tx: WriteTx, topicid: string, expectedTitle: string): { kind: string; title: string } {
  const topic = tx.get<{ kind: string; title: string }>(
    'SELECT kind, title FROM topics WHERE topicid = ? AND hidden = 0',
    [topicid],
  );
  if (!topic)
    throw notFound(
      'TOPIC_NOT_FOUND',
      `No study set or deck ${topicid}. GET /library/study-sets and GET /decks list them.`,
      { topicid },
    );
  if (topic.title !== expectedTitle) {
    throw conflict(
      'TITLE_MISMATCH',
      `expectedTitle does not equal the ${topic.kind === 'deck' ? 'deck' : 'study set'}'s title (exact, case-sensitive); read actualTitle back to the person before deleting. Nothing was changed.`,
      {
        topicid,
        expectedTitle,
        actualTitle: topic.title,
      },
    );
  }
  return topic;
}

/**
 * Removes the content files of deleted snapshot rows that no other row
 * shares. Runs after the delete is acknowledged (a crash before cannot bring
 * back a row without its file) and in one synchronous step, so no snapshot
 * taken meanwhile can come to reference a file between the check and the removal.
 */
function removeUnreferenced(store: Store, files: SnapshotFiles, hashes: readonly string[]): void {
  const still = new Set(
    store
      .all<{ h: string }>(
        'SELECT DISTINCT content_hash AS h FROM snapshots WHERE content_hash IN (SELECT value FROM json_each(?))',
        [JSON.stringify(hashes)],
      )
      .map((r) => r.h),
  );
  files.remove(hashes.filter((h) => !still.has(h)));
}
