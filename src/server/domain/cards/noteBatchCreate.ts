import { BridgeError, invalidInput, saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import { recordOperation } from './noteRows';
import {
  insertPlannedCard,
  parentIn,
  planCard,
  readBack,
  rootCardOf,
  type CardCreateDeps,
  type CardPlan,
  type CreateCardInput,
} from './noteCreate';

/** Most cards one batch creates. */
export const MAX_BATCH_CARDS = 200;

/** One card of a batch: like a single create's body, its parent a card of the set or an earlier card of the batch. */
export type BatchCardInput = Omit<CreateCardInput, 'topicid' | 'actor'> & { parentIndex?: number };

interface PlannedBatchCard {
  plan: CardPlan;
  /** An existing card, or the index of an earlier card of the batch. */
  parent: { noteId: string } | { index: number };
}

/** A refusal of card `index`, naming it: the same code and status, the index in message and details. */
function atIndex(index: number, e: unknown): unknown {
  if (!(e instanceof BridgeError)) return e;
  return new BridgeError(e.code, e.status, `cards[${index}]: ${e.message}`, { ...e.details, index }, e.retryable);
}

/**
 * Checks every card of a batch and anchors its excerpts, writing nothing: the
 * parents (an existing card of this set, or `parentIndex` of an EARLIER card,
 * so the batch is a tree in pre-order), the content and the excerpts. Any
 * refusal names its card's index (`nameIndex`: false for a single card, created or dry-run); nothing is written then.
 */
export async function planBatch(
  services: CardCreateDeps,
  topicid: string,
  cards: readonly BatchCardInput[],
  nameIndex = true,
): Promise<PlannedBatchCard[]> {
  const { store } = services;
  assertStudySet(store, topicid);
  if (cards.length > MAX_BATCH_CARDS)
    throw invalidInput(
      `At most ${MAX_BATCH_CARDS} cards per call (got ${cards.length}); split the batch. Nothing was changed.`,
      { max: MAX_BATCH_CARDS, count: cards.length },
      'TOO_MANY_CARDS',
    );
  const planned: PlannedBatchCard[] = [];
  let root: string | undefined;
  for (const [index, card] of cards.entries()) {
    try {
      let parent: PlannedBatchCard['parent'];
      if (card.parentIndex !== undefined) {
        if (card.parentNoteId !== undefined)
          throw invalidInput(
            'Give parentNoteId or parentIndex, not both. Nothing was changed.',
            { fields: ['parentNoteId', 'parentIndex'] },
            'INVALID_PARENT_INDEX',
          );
        if (card.parentIndex >= index) {
          throw invalidInput(
            `parentIndex ${card.parentIndex} must point at an earlier card of the batch (0..${index - 1}): parents come before their children. Nothing was changed.`,
            { parentIndex: card.parentIndex },
            'INVALID_PARENT_INDEX',
          );
        }
        parent = { index: card.parentIndex };
      } else {
        const noteId = card.parentNoteId ?? (root ??= rootCardOf(store, topicid));
        parentIn(store, topicid, noteId);
        parent = { noteId };
      }
      planned.push({ plan: await planCard(services, card), parent });
    } catch (e) {
      throw nameIndex ? atIndex(index, e) : e;
    }
  }
  return planned;
}

/** What a batch would create (the dry-run's details): titles, parents, and which excerpts would not anchor. */
export function previewBatch(planned: readonly PlannedBatchCard[]) {
  const cards = planned.map(({ plan, parent }, index) => ({
    index,
    title: plan.title,
    ...('index' in parent ? { parentIndex: parent.index } : { parentNoteId: parent.noteId }),
    ...(plan.source
      ? { excerpt: { bookmd5: plan.source.bookmd5, page: plan.source.page, anchored: plan.source.rect !== null } }
      : {}),
    ...(plan.alsoOn ? { ambiguous: true as const, alsoOn: plan.alsoOn } : {}),
    ...(plan.warnings.length ? { warnings: plan.warnings } : {}),
  }));
  return {
    wouldCreate: cards.length,
    cards,
    notAnchored: cards.filter((c) => c.excerpt && !c.excerpt.anchored).map((c) => c.index),
  };
}

/**
 * Creates a planned batch in one transaction with one operation-log row (one
 * undo step), then reads every card back: persisted only when all agree.
 */
export async function writeBatch(
  services: CardCreateDeps,
  topicid: string,
  planned: readonly PlannedBatchCard[],
  actor: Actor,
) {
  const { store } = services;
  const noteIds = planned.map(() => newId());
  const parentIds = planned.map(({ parent }) => ('index' in parent ? noteIds[parent.index] : parent.noteId));
  const now = nowIso();
  await store.write((tx) => {
    // Still there when the write runs.
    for (const id of new Set(planned.flatMap(({ parent }) => ('noteId' in parent ? [parent.noteId] : []))))
      parentIn(tx, topicid, id);
    planned.forEach(({ plan }, i) =>
      insertPlannedCard(tx, plan, { noteid: noteIds[i], topicid, parentId: parentIds[i] }, now),
    );
    recordOperation(tx, { topicid, kind: 'create', actor, noteIds, now });
  });
  const cards = planned.map(({ plan }, index) => {
    const sourceAnchor = readBack(store, noteIds[index], parentIds[index], plan);
    if (!sourceAnchor)
      throw saveFailed(
        `Card ${noteIds[index]}${planned.length > 1 ? ` (cards[${index}])` : ''} did not read back as written; treat ${planned.length > 1 ? 'the batch' : 'it'} as not created and check GET /study-sets/${topicid}/tree.`,
        { noteid: noteIds[index], index },
      );
    return {
      index,
      noteid: noteIds[index],
      parentNoteId: parentIds[index],
      title: plan.title,
      sourceAnchor,
      ...(plan.alsoOn ? { ambiguous: true as const, alsoOn: plan.alsoOn } : {}),
      ...(plan.warnings.length ? { warnings: plan.warnings } : {}),
    };
  });
  return {
    topicid,
    persisted: true,
    count: cards.length,
    cards,
    notAnchored: cards.filter((c) => c.sourceAnchor.hasExcerpt && !c.sourceAnchor.rect).map((c) => c.index),
  };
}

/**
 * Creates one card under `parentNoteId` (default: the set's root card): a
 * batch of one, so one card and a tree take the same checks, anchoring, write
 * (one transaction, one operation-log row) and read-back.
 */
export async function createCard(services: CardCreateDeps, input: CreateCardInput) {
  const { topicid, actor, ...card } = input;
  const written = await writeBatch(services, topicid, await planBatch(services, topicid, [card], false), actor);
  const { index: _index, ...created } = written.cards[0];
  return { ...created, topicid, persisted: true as const };
}
