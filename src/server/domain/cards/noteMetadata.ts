import { invalidInput } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { SqlParam } from '../../ground/store/journal';
import type { Store } from '../../ground/store/store';
import { recordPerSet, editNotConfirmed } from './editBatch';
import { type Db, getNotes, inList } from './noteRows';
import { setCardColors } from './rows/cardRowsEdit';

/**
 * A card's style: colorIndex (0..15, the palette entry) and fillIndex (−1..2,
 * as /capabilities.fillIndexSemantics says). Unset values read as null.
 */

export interface MetadataPatch {
  colorIndex?: number;
  fillIndex?: number;
}

export interface Metadata {
  colorIndex: number | null;
  fillIndex: number | null;
}

export interface MetadataPlan {
  noteid: string;
  topicid: string;
  before: Metadata;
  after: Metadata;
  changed: boolean;
}

/** What the patch does to each card (reads only). */
export function planMetadata(db: Db, noteIds: readonly string[], patch: MetadataPatch): MetadataPlan[] {
  if (patch.colorIndex === undefined && patch.fillIndex === undefined) {
    throw invalidInput('patch needs colorIndex (0..15) or fillIndex (-1..2), or both. Nothing was changed.', { patch });
  }
  return getNotes(db, noteIds, ['topicid', 'color_index', 'fill_index']).map((n) => {
    const before = { colorIndex: n.color_index, fillIndex: n.fill_index };
    const after = { colorIndex: patch.colorIndex ?? before.colorIndex, fillIndex: patch.fillIndex ?? before.fillIndex };
    return {
      noteid: n.noteid,
      topicid: n.topicid,
      before,
      after,
      changed: before.colorIndex !== after.colorIndex || before.fillIndex !== after.fillIndex,
    };
  });
}

export function previewMetadata(db: Db, noteIds: readonly string[], patch: MetadataPatch) {
  const plan = planMetadata(db, noteIds, patch);
  return {
    wouldChange: plan.filter((p) => p.changed).map(({ noteid, before, after }) => ({ noteid, before, after })),
    unchanged: plan.filter((p) => !p.changed).map((p) => p.noteid),
  };
}

/** The stored style of each card, read fresh from the store. */
export function readMetadata(db: Db, noteIds: readonly string[]): Map<string, Metadata> {
  const rows = db.all<{ noteid: string; color_index: number | null; fill_index: number | null }>(
    `SELECT noteid, color_index, fill_index FROM notes WHERE noteid IN ${inList(noteIds.length)}`,
    noteIds as SqlParam[],
  );
  return new Map(rows.map((r) => [r.noteid, { colorIndex: r.color_index, fillIndex: r.fill_index }]));
}

/**
 * The independent read-back: persisted:true only when a fresh SELECT after
 * the write shows exactly the planned values; else 503 SAVE_FAILED naming the
 * cards that disagree.
 */
export function confirmMetadata(db: Db, plan: readonly { noteid: string; after: Metadata }[]): Map<string, Metadata> {
  const stored = readMetadata(
    db,
    plan.map((p) => p.noteid),
  );
  const disagree = plan
    .filter((p) => {
      const s = stored.get(p.noteid);
      return !s || s.colorIndex !== p.after.colorIndex || s.fillIndex !== p.after.fillIndex;
    })
    .map((p) => ({ noteid: p.noteid, expected: p.after, stored: stored.get(p.noteid) ?? null }));
  if (disagree.length) throw editNotConfirmed('metadata', { disagree });
  return stored;
}

/** Writes the patch in one transaction (one operation per set), then confirms it by reading back. */
export async function editMetadata(store: Store, noteIds: readonly string[], patch: MetadataPatch, actor: Actor) {
  const now = nowIso();
  const plan = await store.write((tx) => {
    const plan = planMetadata(tx, noteIds, patch);
    const changed = plan.filter((p) => p.changed);
    // One statement for every changed card (the journal keeps one short record, not 200): only the patched
    // columns are set, so each card's other value stays its own, as planned.
    if (changed.length) {
      setCardColors(
        tx,
        changed.map((p) => p.noteid),
        { colorIndex: patch.colorIndex, fillIndex: patch.fillIndex },
        now,
      );
    }
    recordPerSet(tx, changed, 'metadata', actor, now);
    return plan;
  });
  const stored = confirmMetadata(store, plan);
  return {
    persisted: true,
    results: plan.map((p) => ({ noteid: p.noteid, ...stored.get(p.noteid)! })),
    changed: plan.filter((p) => p.changed).length,
  };
}
