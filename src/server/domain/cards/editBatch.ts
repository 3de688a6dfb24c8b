import { saveFailed, type BridgeError } from '../../errors';
import type { Actor } from '../../actor';
import type { WriteTx } from '../../ground/store/store';
import { recordOperation } from './noteRows';

/**
 * What every card edit batch shares: one operation row per study set the
 * batch touched (a batch may span sets; each set gets its own undo group,
 * all in the caller's one transaction), and the refusal when the read-back
 * after the write does not show what was asked.
 */

/** Records one operation per set among `cards` (nothing for an empty list). */
export function recordPerSet(
  tx: WriteTx,
  cards: readonly { noteid: string; topicid: string }[],
  kind: string,
  actor: Actor,
  now: string,
): void {
  const bySet = new Map<string, string[]>();
  for (const c of cards) {
    const ids = bySet.get(c.topicid) ?? [];
    ids.push(c.noteid);
    bySet.set(c.topicid, ids);
  }
  for (const [topicid, noteIds] of bySet) recordOperation(tx, { topicid, kind, actor, noteIds, now });
}

/** SAVE_FAILED for an edit batch whose read-back disagrees. */
export function editNotConfirmed(what: string, details: Record<string, unknown>): BridgeError {
  return saveFailed(
    `The ${what} write was not confirmed by reading the store back; it may be partly applied. Re-read the cards with POST /notes/batch-get and retry.`,
    details,
  );
}

/** Same members regardless of order. */
export function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}
