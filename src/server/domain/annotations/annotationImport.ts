import { saveFailed } from '../../errors';
import type { Actor } from '../../actor';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import { addDocumentToSetTx } from '../library/studySetMembership';
import type { Store } from '../../ground/store/store';
import { unionOf } from '../../ground/text/keySpan';
import { nextChildPosition, recordOperation } from '../cards/noteRows';
import { rootCardOf } from '../cards/noteCreate';
import { insertCardRows, type PlannedCardRow, type PlannedText } from '../cards/rows/cardRowsBatch';
import {
  existingAnchors,
  notYetImported,
  type AnnotationImportPlan,
  type PlannedAnnotationCard,
} from './annotationPlan';

type IndexRow = { noteid: string; topicid: string; text: string };

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

/** The rows of `cards` under `root` from position `base`: card, texts (excerpt or note; comment) and index row. */
function cardRowsOf(
  cards: readonly PlannedAnnotationCard[],
  plan: AnnotationImportPlan,
  root: string,
  base: number,
  now: string,
) {
  const { topicid, bookmd5 } = plan;
  const batch = { cards: [] as PlannedCardRow[], texts: [] as PlannedText[], index: [] as IndexRow[] };
  const created = cards.map((c, i) => {
    const noteid = newId();
    const rects = c.rects;
    const u = unionOf(rects.map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })))!;
    const rect = { x: u.x, y: u.y, width: u.w, height: u.h };
    batch.cards.push({
      noteid,
      topicid,
      parentId: root,
      position: base + i,
      title: c.title,
      colorIndex: c.colorIndex,
      source: { bookmd5, page: c.page, rect, rects },
      now,
    });
    const own = [c.text, c.comment ?? ''];
    own.forEach((text, idx) => {
      if (text) batch.texts.push({ noteid, idx, text, excerpt: idx === 0 && c.excerpt });
    });
    // As reindexNote builds it: the title, then the texts in order (new cards have no hashtags).
    batch.index.push({ noteid, topicid, text: [c.title, ...own.filter(Boolean)].join('\n') });
    return { noteid, kind: c.kind, page: c.page, text: c.text };
  });
  return { batch, created };
}

/** Cards per multi-row batch; a step writes batches until STEP_MS have passed. */
const BATCH_CARDS = 100;
/** Time one step of the write holds the event loop (a batch of 100 cards costs 5-20 ms of SQL, more under load). */
const STEP_MS = 40;

type Created = ReturnType<typeof cardRowsOf>['created'];

/**
 * Writes the planned cards under the set's root card, in reading order, with
 * one operation row (one undo step); the book joins the set's documents.
 * Cards another import wrote since the plan are left out (the key is checked
 * again inside the write), so two imports racing create each card once.
 * One sliced write (Store.writeSliced): one transaction and one journal
 * record, acknowledged whole or not at all, written in steps of STEP_MS with
 * the event loop served between them (5,000 cards in one turn held it for
 * 0.4-1.8 s), each step multi-row statements (cardRowsBatch).
 */
export async function writeAnnotationImport(store: Store, plan: AnnotationImportPlan, actor: Actor) {
  const { topicid, bookmd5 } = plan;
  assertStudySet(store, topicid);
  const now = nowIso();
  let state: { fresh: PlannedAnnotationCard[]; already: number; root: string; base: number } | undefined;
  const cards: Created = [];
  const written = await store.writeSliced((tx) => {
    if (!state) {
      const { fresh, already } = notYetImported(plan.cards, existingAnchors(tx, topicid, bookmd5));
      if (!fresh.length) return { value: { cards, already } };
      const root = rootCardOf(tx, topicid);
      state = { fresh, already, root, base: nextChildPosition(tx, root) };
      return undefined;
    }
    const { fresh, already, root, base } = state;
    const started = performance.now();
    while (cards.length < fresh.length && performance.now() - started < STEP_MS) {
      const from = cards.length;
      const rows = cardRowsOf(fresh.slice(from, from + BATCH_CARDS), plan, root, base + from, now);
      insertCardRows(tx, rows.batch);
      cards.push(...rows.created);
    }
    if (cards.length < fresh.length) return undefined;
    addDocumentToSetTx(tx, topicid, bookmd5, now);
    recordOperation(tx, { topicid, kind: 'create', actor, noteIds: cards.map((c) => c.noteid), now });
    return { value: { cards, already } };
  });
  // Read back, in one statement: every card is there with its anchor page.
  const pages = new Map(
    store
      .all<{ noteid: string; source_page: number | null }>(
        'SELECT noteid, source_page FROM notes WHERE noteid IN (SELECT value FROM json_each(?)) AND hidden = 0',
        [JSON.stringify(written.cards.map((c) => c.noteid))],
      )
      .map((r) => [r.noteid, r.source_page]),
  );
  for (const c of written.cards) {
    if (pages.get(c.noteid) !== c.page)
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
