import { BridgeError, invalidInput } from '../../errors';
import type { Actor } from '../../actor';
import type { Store, WriteTx } from '../../ground/store/store';
import type { UiHost } from '../ui/uiHost';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import type { DocumentReader } from '../library/documentReader';
import type { PageCache } from '../../ground/cache/pageCache';

/** What creating a card reads and touches. */
export interface CardCreateDeps {
  store: Store;
  documents: DocumentCatalogue;
  pageCache: Pick<PageCache, 'pageSize'>;
  documentReader: Pick<DocumentReader, 'locate'>;
  ui: UiHost;
}
import { getNote, insertNote, reindexNote, type NoteRow } from './noteRows';
import { insertTexts } from './rows/cardRowsInsert';
import { cutTitle, sourceAnchorOf, type SourceAnchor } from './sourceAnchor';
import { locateExcerpt, type CreateCardWarning } from './excerptLocate';

export type { CreateCardWarning } from './excerptLocate';

export interface CreateCardInput {
  topicid: string;
  parentNoteId?: string;
  title?: string;
  text?: string;
  /**
   * `rect` (PDF points, top-left origin): stored as the anchor instead of the text match. `near`: the reader's
   * selection box, a hint: the text is matched on the page near it (glyph-true rectangles), else the box is the anchor.
   */
  excerpt?: {
    bookmd5: string;
    page: number;
    text: string;
    rect?: { x: number; y: number; width: number; height: number };
    near?: { x: number; y: number; width: number; height: number };
  };
  colorIndex?: number;
  fillIndex?: number;
  actor: Actor;
}

/** Parent must be a visible card of this set: 404 NOTE_NOT_FOUND, another set's card → 422 NOTES_IN_DIFFERENT_SETS. */
export function parentIn(db: Pick<Store, 'get' | 'all'>, topicid: string, parentId: string): NoteRow {
  const parent = getNote(db, parentId);
  if (parent.topicid !== topicid) {
    throw invalidInput(
      `Card ${parentId} belongs to study set ${parent.topicid}, not ${topicid}; a new card goes under a card of its own set. Nothing was changed.`,
      { parentNoteId: parentId, topicids: [topicid, parent.topicid] },
      'NOTES_IN_DIFFERENT_SETS',
    );
  }
  return parent;
}

/**
 * A rectangle given with an excerpt (kept as the anchor, or a hint where the
 * text is): the document and page must exist (404 DOCUMENT_NOT_FOUND, 422
 * PAGE_OUT_OF_RANGE) and, once the page size is known, the rectangle must lie
 * on the page (422 RECT_OUTSIDE_PAGE). No text matching, so no extraction wait.
 */
async function givenRect(
  services: Pick<CardCreateDeps, 'documents' | 'pageCache'>,
  bookmd5: string,
  page: number,
  rect: { x: number; y: number; width: number; height: number },
  field = 'excerpt.rect',
) {
  const row = services.documents.get(bookmd5);
  if (page > row.page_count)
    throw invalidInput(
      `Page ${page} is beyond this ${row.page_count}-page document.`,
      { page, pageCount: row.page_count },
      'PAGE_OUT_OF_RANGE',
    );
  const size = await services.pageCache.pageSize(bookmd5, page); // the table only: no extraction wait
  // Half a point of slack: a selection's edge may round past the page's.
  if (
    size?.width &&
    size.height &&
    (rect.x + rect.width > size.width + 0.5 || rect.y + rect.height > size.height + 0.5)
  ) {
    throw invalidInput(
      `${field} ${JSON.stringify(rect)} does not lie on page ${page} (${size.width} × ${size.height} points, top-left origin). Nothing was changed.`,
      { rect, pageSize: { width: size.width, height: size.height } },
      'RECT_OUTSIDE_PAGE',
    );
  }
  return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
}

/** A card checked and anchored, not yet written: what single and batch creation share. */
export interface CardPlan {
  title: string;
  /** Index 0: the excerpt's text, else the text. */
  body: string | undefined;
  /** With an excerpt as the body, the text becomes the first comment. */
  comment: string | undefined;
  excerpt: boolean;
  /** `rects`: one box per line or fragment the matcher found (rect is their union). */
  source: {
    bookmd5: string;
    page: number;
    rect: { x: number; y: number; width: number; height: number } | null;
    rects?: { x: number; y: number; width: number; height: number }[];
  } | null;
  colorIndex: number | null;
  fillIndex: number | null;
  warnings: CreateCardWarning[];
  /** The other pages the excerpt stands on, when it stands on several (anchored on the given page). */
  alsoOn?: number[];
}

/**
 * Checks one card's content and anchors its excerpt: to the given `rect`, or
 * with the matcher of POST /documents/{id}/locate (waiting for the page's
 * extraction like locate does). An excerpt that cannot be found still makes a
 * card, with the page but no rectangle, and a warning says why. Writes nothing.
 */
export async function planCard(
  services: CardCreateDeps,
  input: Omit<CreateCardInput, 'topicid' | 'parentNoteId' | 'actor'>,
): Promise<CardPlan> {
  const title = input.title?.trim() ?? '';
  const text = input.text ?? '';
  const hasText = text.trim() !== '';
  if (!title && !hasText && !input.excerpt) {
    throw invalidInput('A card needs at least one of title, text or excerpt. Nothing was changed.', {
      fields: ['title', 'text', 'excerpt'],
    });
  }
  const warnings: CreateCardWarning[] = [];
  let source: CardPlan['source'] = null;
  if (input.excerpt) {
    const ex = input.excerpt;
    if (!ex.text.trim()) throw invalidInput('excerpt.text must not be blank.', { field: 'excerpt.text' });
    if (ex.rect && ex.near)
      throw invalidInput(
        'Send excerpt.rect (the anchor as given) or excerpt.near (a hint where the text is), not both. Nothing was changed.',
        { fields: ['excerpt.rect', 'excerpt.near'] },
      );
    if (ex.rect)
      source = { bookmd5: ex.bookmd5, page: ex.page, rect: await givenRect(services, ex.bookmd5, ex.page, ex.rect) };
    if (ex.near) await givenRect(services, ex.bookmd5, ex.page, ex.near, 'excerpt.near');
  }
  let alsoOn: number[] | undefined;
  if (input.excerpt && !source) {
    const located = await locateExcerpt(services, input.excerpt);
    ({ source, alsoOn } = located);
    warnings.push(...located.warnings);
  }
  const body = input.excerpt ? input.excerpt.text : hasText ? text : undefined;
  return {
    title: title || cutTitle(body ?? ''),
    body,
    comment: input.excerpt && hasText ? text : undefined,
    excerpt: !!input.excerpt,
    source,
    colorIndex: input.colorIndex ?? null,
    fillIndex: input.fillIndex ?? null,
    warnings,
    ...(alsoOn ? { alsoOn } : {}),
  };
}

/** The set's root card: where a card without parentNoteId goes. */
export function rootCardOf(store: Pick<Store, 'get'>, topicid: string): string {
  const root = store.get<{ r: string | null }>('SELECT root_note_id AS r FROM topics WHERE topicid = ?', [topicid])?.r;
  if (!root)
    throw new BridgeError('ROOT_CARD_MISSING', 422, `Study set ${topicid} has no root card; pass parentNoteId.`, {
      topicid,
    });
  return root;
}

/** Writes a planned card (inside the caller's transaction); no operation row. */
export function insertPlannedCard(
  tx: WriteTx,
  plan: CardPlan,
  ids: { noteid: string; topicid: string; parentId: string },
  now: string,
): void {
  insertNote(tx, {
    ...ids,
    title: plan.title,
    text: plan.body,
    excerpt: plan.excerpt,
    source: plan.source,
    colorIndex: plan.colorIndex,
    fillIndex: plan.fillIndex,
    now,
  });
  if (plan.comment !== undefined) {
    insertTexts(tx, ids.noteid, [{ idx: 1, text: plan.comment }]);
    reindexNote(tx, ids.noteid);
  }
}

/** The card as read back, and whether it agrees with its plan (persisted means an independent read agreed). */
export function readBack(
  store: Pick<Store, 'get'>,
  noteid: string,
  parentId: string,
  plan: CardPlan,
): SourceAnchor | undefined {
  const back = store.get<NoteRow>('SELECT * FROM notes WHERE noteid = ? AND hidden = 0', [noteid]);
  const bodyBack = store.get<{ text: string; excerpt: number }>(
    'SELECT text, excerpt FROM note_texts WHERE noteid = ? AND idx = 0',
    [noteid],
  );
  if (!back || back.parent_id !== parentId || back.title !== plan.title || (bodyBack?.text ?? undefined) !== plan.body)
    return undefined;
  return sourceAnchorOf(back, bodyBack?.excerpt === 1);
}
