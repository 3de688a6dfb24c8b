import { saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import { addDocumentToSetTx } from '../library/studySetMembership';
import type { Store } from '../../ground/store/store';
import { unionOf } from '../../ground/text/keySpan';
import { insertNote, nextChildPosition, recordOperation, reindexNote } from '../cards/noteRows';
import { rootCardOf } from '../cards/noteCreate';
import { insertTexts } from '../cards/rows/cardRowsInsert';
import { existingAnchors, notYetImported, type AnnotationImportPlan } from './annotationPlan';

/** How many cards the dry-run lists (the count is always whole). */
const PREVIEW_CARDS = 200;

/** The dry-run's details: what would be created and skipped. */
export function previewAnnotationImport(plan: AnnotationImportPlan) {
  return {
    wouldCreate: plan.cards.length,
    cards: plan.cards.slice(0, PREVIEW_CARDS).map((c) => ({ kind: c.kind, page: c.page, text: c.text })),
    skipped: plan.skipped,
    alreadyImported: plan.alreadyImported,
  };
}

/**
 * Writes the planned cards under the set's root card, in reading order, in
 * one transaction with one operation row (one undo step); the book joins the
 * set's documents. Cards another import wrote since the plan are left out
 * (the key is checked again inside the transaction), so two imports racing
 * create each card once.
 */
export async function writeAnnotationImport(store: Store, plan: AnnotationImportPlan, actor: Actor) {
  const { topicid, bookmd5 } = plan;
  assertStudySet(store, topicid);
  const now = nowIso();
  const written = await store.write((tx) => {
    const { fresh, already } = notYetImported(plan.cards, existingAnchors(tx, topicid, bookmd5));
    if (!fresh.length) return { cards: [], already };
    const root = rootCardOf(tx, topicid);
    const base = nextChildPosition(tx, root);
    const cards = fresh.map((c, i) => {
      const noteid = newId();
      const rects = c.rects;
      const u = unionOf(rects.map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })))!;
      insertNote(tx, {
        noteid,
        topicid,
        parentId: root,
        position: base + i,
        title: c.title,
        text: c.text,
        excerpt: c.excerpt,
        source: { bookmd5, page: c.page, rect: { x: u.x, y: u.y, width: u.w, height: u.h }, rects },
        colorIndex: c.colorIndex,
        now,
      });
      if (c.comment) {
        insertTexts(tx, noteid, [{ idx: 1, text: c.comment }]);
        reindexNote(tx, noteid);
      }
      return { noteid, kind: c.kind, page: c.page, text: c.text };
    });
    addDocumentToSetTx(tx, topicid, bookmd5, now);
    recordOperation(tx, { topicid, kind: 'create', actor, noteIds: cards.map((c) => c.noteid), now });
    return { cards, already };
  });
  // Read back: every card is there with its anchor page.
  for (const c of written.cards) {
    const back = store.get<{ source_page: number | null }>(
      'SELECT source_page FROM notes WHERE noteid = ? AND hidden = 0',
      [c.noteid],
    );
    if (back?.source_page !== c.page)
      throw saveFailed(
        `Card ${c.noteid} did not read back as written; check GET /study-sets/${topicid}/tree before importing again.`,
        { noteid: c.noteid },
      );
  }
  return {
    topicid,
    bookmd5,
    created: written.cards,
    skipped: plan.skipped,
    alreadyImported: plan.alreadyImported + written.already,
  };
}
