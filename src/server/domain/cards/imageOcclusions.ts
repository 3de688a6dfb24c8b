import { conflict, invalidInput, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { nowIso } from '../library/ids';
import type { Store } from '../../ground/store/store';
import {
  cardAndContent,
  excerptContentId,
  occlusionOf,
  occlusionTarget,
  type CardContent,
  type OcclusionMask,
  type Rect,
} from './cardImages';
import { maskFingerprint, sourceFingerprint } from './occlusionFingerprint';
import { recordOperation, type Db } from './noteRows';
import { touchNotes } from './rows/cardRowsEdit';
import { insertExcerptPart, setPartData } from './rows/cardRowsParts';

export const MAX_MASKS = 200;

export interface OcclusionInput {
  operation: 'add' | 'replace';
  masks: Array<{ rect: Rect; group?: number; flags?: number; isText?: boolean }>;
  expectedSourceFingerprint: string;
  expectedMaskFingerprint?: string;
  contentId?: string;
}

/** Same group and the same rectangle (to a millionth of the picture) = the same mask. */
const maskKey = (m: { rect: Rect; group?: number }) =>
  [m.group ?? 0, ...[m.rect.x, m.rect.y, m.rect.width, m.rect.height].map((v) => Math.round(v * 1e6))].join(':');

interface Plan {
  cardId: string;
  contentNoteId: string;
  topicid: string;
  part: CardContent;
  sourceFingerprint: string;
  maskFingerprint: string;
  masks: OcclusionMask[];
  preview: {
    sourceFingerprint: string;
    maskFingerprint: string;
    contentId: string;
    wouldAdd: number;
    wouldReplace: number;
    deduplicated: number;
    resultingMaskCount: number;
    existingReviewCardCount: number;
  };
}

/** Review cards made from this card (they are snapshots: rebuilding them propagates new masks). */
const reviewCardCount = (db: Db, noteIds: string[]) =>
  db.get<{ c: number }>(
    `SELECT count(*) AS c FROM deck_cards d JOIN topics t ON t.topicid = d.deck_id AND t.hidden = 0 WHERE d.source_note_id IN (${noteIds.map(() => '?').join(',')})`,
    noteIds,
  )?.c ?? 0;

/**
 * Checks the request against the card as it is now and works out the masks
 * it would leave: 404 card/content, 422 not an image card, 409 when either
 * fingerprint moved, 422 when the result passes 200 masks. Writes nothing.
 */
export function planOcclusions(db: Db, noteid: string, input: OcclusionInput, confirming: boolean): Plan {
  const { card, content } = cardAndContent(db, noteid);
  const part = occlusionTarget(db, content, card.noteid, input.contentId);
  const existing = part.occlusion?.masks ?? [];
  const src = sourceFingerprint(part);
  const msk = maskFingerprint(existing);
  const current = { sourceFingerprint: src, maskFingerprint: msk, contentId: part.contentId };
  if (input.expectedSourceFingerprint !== src) {
    throw conflict(
      'IMAGE_SOURCE_CHANGED',
      `The picture of card ${noteid} is not the one expectedSourceFingerprint names (its excerpt or image changed). Look at it again (GET /notes/{id}/content/{contentId}), re-plan the masks, and dry-run with the sourceFingerprint in details. Nothing was changed.`,
      current,
    );
  }
  if (confirming && input.expectedMaskFingerprint === undefined) {
    throw invalidInput(
      'A confirmed occlusion write needs expectedMaskFingerprint (the maskFingerprint of the dry-run). Nothing was changed.',
      { field: 'expectedMaskFingerprint', ...current },
      'INVALID_INPUT',
    );
  }
  if (input.expectedMaskFingerprint !== undefined && input.expectedMaskFingerprint !== msk) {
    throw conflict(
      'OCCLUSION_CHANGED',
      `The masks of card ${noteid} changed since the dry-run (maskFingerprint differs). Dry-run again and confirm with the new maskFingerprint. Nothing was changed.`,
      { ...current, maskCount: existing.length },
    );
  }

  const seen = new Set(input.operation === 'add' ? existing.map(maskKey) : []);
  const fresh = input.masks.filter((m) => {
    const k = maskKey(m);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const kept = input.operation === 'add' ? existing : [];
  const masks: OcclusionMask[] = [
    ...kept.map((m, i) => ({ ...m, index: i })),
    ...fresh.map((m, i) => ({
      index: kept.length + i,
      rect: m.rect,
      ...(m.group !== undefined ? { group: m.group } : {}),
      ...(m.flags !== undefined ? { flags: m.flags } : {}),
      ...(m.isText !== undefined ? { isText: m.isText } : {}),
    })),
  ];
  if (masks.length > MAX_MASKS) {
    throw invalidInput(
      `The card would carry ${masks.length} masks; at most ${MAX_MASKS} per picture. Use operation replace or fewer boxes. Nothing was changed.`,
      { ...current, resultingMaskCount: masks.length, maxMasks: MAX_MASKS },
      'TOO_MANY_MASKS',
    );
  }
  return {
    cardId: card.noteid,
    contentNoteId: content.noteid,
    topicid: content.topicid,
    part,
    sourceFingerprint: src,
    maskFingerprint: msk,
    masks,
    preview: {
      ...current,
      wouldAdd: fresh.length,
      wouldReplace: input.operation === 'replace' ? existing.length : 0,
      deduplicated: input.masks.length - fresh.length,
      resultingMaskCount: masks.length,
      existingReviewCardCount: reviewCardCount(db, [...new Set([card.noteid, content.noteid])]),
    },
  };
}

/**
 * Stores the masks in the picture part's data (`occlusion`), making the
 * excerpt part row of an anchored card on its first masks. One transaction,
 * one operation ('occlusions'), re-planned inside it so nothing moved
 * between the check and the write; then read back.
 */
export async function writeOcclusions(store: Store, noteid: string, input: OcclusionInput, actor: Actor) {
  const now = nowIso();
  const plan = await store.write((tx) => {
    const p = planOcclusions(tx, noteid, input, true);
    const occlusion = { coordinateSpace: 'normalized_top_left', masks: p.masks };
    if (p.part.row) {
      const data = p.part.row.data ? (JSON.parse(p.part.row.data) as Record<string, unknown>) : {};
      setPartData(tx, p.part.contentId, JSON.stringify({ ...data, occlusion }));
    } else {
      // First masks on an excerpt: the region becomes a stored part to hold them.
      const data = JSON.stringify({ source: p.part.region, occlusion });
      insertExcerptPart(tx, p.contentNoteId, excerptContentId(p.contentNoteId), data);
    }
    touchNotes(tx, [p.cardId, p.contentNoteId], now);
    recordOperation(tx, { topicid: p.topicid, kind: 'occlusions', actor, noteIds: [p.cardId, p.contentNoteId], now });
    return p;
  });
  const stored = occlusionOf(
    store.get<{ data: string | null }>('SELECT data FROM note_parts WHERE content_id = ?', [plan.part.contentId])
      ?.data ?? null,
  );
  const fingerprint = maskFingerprint(stored?.masks ?? []);
  if (fingerprint !== maskFingerprint(plan.masks)) {
    throw saveFailed(
      `The masks read back from card ${noteid} are not the ones written; GET the card again (batch-get) and retry.`,
      { noteid, contentId: plan.part.contentId },
    );
  }
  return {
    persisted: true as const,
    noteid: plan.cardId,
    contentId: plan.part.contentId,
    sourceFingerprint: plan.sourceFingerprint,
    maskFingerprint: fingerprint,
    maskCount: stored?.masks.length ?? 0,
    added: plan.preview.wouldAdd,
    replaced: plan.preview.wouldReplace,
    deduplicated: plan.preview.deduplicated,
    existingReviewCardCount: plan.preview.existingReviewCardCount,
    ...(plan.preview.existingReviewCardCount > 0
      ? {
          warnings: [
            `${plan.preview.existingReviewCardCount} review card(s) were made from this card before; they are snapshots and keep their old masks until rebuilt (POST /decks/{id}/cards again).`,
          ],
        }
      : {}),
  };
}
