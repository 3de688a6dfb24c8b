import { invalidInput, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store } from '../../ground/store/store';
import { childrenOf, getNote, recordOperation, refuseRootCard } from './noteRows';
import { assertMindMapCards } from './noteMove';
import { setCardFlag } from './rows/cardRowsEdit';

/**
 * POST /notes/{id}/fold-into-sub-map: marks a card as a sub-map root (its
 * descendants then live in that sub-map) or, with undo, expands it back into
 * the map it sits in. The tree itself does not change.
 */
export async function foldIntoSubMap(store: Store, noteid: string, undo: boolean, actor: Actor) {
  const now = nowIso();
  const changed = await store.write((tx) => {
    const note = getNote(tx, noteid);
    assertMindMapCards(tx, [note]);
    refuseRootCard(tx, note, undo ? 'expanded from a sub-map' : 'folded into a sub-map');
    if (undo) {
      if (!note.sub_map)
        throw invalidInput(
          `${noteid} is not a sub-map root, so there is nothing to expand. Nothing was changed.`,
          { noteid },
          'NOT_A_SUB_MAP',
        );
    } else {
      if (!childrenOf(tx, noteid).length)
        throw invalidInput(
          `${noteid} has no child cards to fold into a sub-map. Nothing was changed.`,
          { noteid },
          'NO_CHILDREN',
        );
      if (note.sub_map) return false; // already a sub-map root
    }
    setCardFlag(tx, noteid, 'sub_map', !undo, now);
    recordOperation(tx, { topicid: note.topicid, kind: 'sub-map', actor, noteIds: [noteid], now });
    return true;
  });
  const row = store.get<{ sub_map: number }>('SELECT sub_map FROM notes WHERE noteid = ? AND hidden = 0', [noteid]);
  const isSubMapRoot = row?.sub_map === 1;
  if (!row || isSubMapRoot === undo)
    throw saveFailed('The sub-map change was written but reading it back disagrees.', { noteid });
  return { persisted: true, noteid, isSubMapRoot, changed };
}
