import { BridgeError, invalidInput, saveFailed } from '../errors';
import type { Actor } from '../actor';
import { newId, nowIso } from '../library/ids';
import { assertStudySet } from '../library/studySets';
import type { Store } from '../store/store';
import type { UiHost } from '../ui/uiHost';
import type { DocumentCatalogue } from '../library/documentCatalogue';
import type { DocumentReader } from '../library/documentReader';
import type { PageCache } from '../cache/pageCache';

/** What creating a card reads and touches. */
export interface CardCreateDeps {
  store: Store;
  documents: DocumentCatalogue;
  pageCache: Pick<PageCache, 'pageSize'>;
  documentReader: Pick<DocumentReader, 'locate'>;
  ui: UiHost;
}
import { getNote, insertNote, recordOperation, reindexNote, type NoteRow } from './noteRows';
import { cutTitle, sourceAnchorOf, type SourceAnchor } from './sourceAnchor';

export interface CreateCardInput {
  topicid: string;
  parentNoteId?: string;
  title?: string;
  text?: string;
  /** `rect` (PDF points, top-left origin): the reader's selection, stored as the anchor instead of the text match. */
  excerpt?: { bookmd5: string; page: number; text: string; rect?: { x: number; y: number; width: number; height: number } };
  colorIndex?: number;
  fillIndex?: number;
  actor: Actor;
}

export interface CreateCardWarning {
  code: 'EXCERPT_NOT_ANCHORED';
  /** no_match: the text is not on that page; page_unreadable: the page has no readable text layer (scan without OCR text). */
  reason: 'no_match' | 'page_unreadable';
  message: string;
}

/** Parent must be a visible card of this set: 404 NOTE_NOT_FOUND, another set's card → 422 NOTES_IN_DIFFERENT_SETS. */
function parentIn(db: Pick<Store, 'get' | 'all'>, topicid: string, parentId: string): NoteRow {
  const parent = getNote(db, parentId);
  if (parent.topicid !== topicid) {
    throw invalidInput(`Card ${parentId} belongs to study set ${parent.topicid}, not ${topicid}; a new card goes under a card of its own set. Nothing was changed.`, { parentNoteId: parentId, topicids: [topicid, parent.topicid] }, 'NOTES_IN_DIFFERENT_SETS');
  }
  return parent;
}

/**
 * The reader's selection rectangle, kept as given (the person chose exactly
 * this): the document and page must exist (404 DOCUMENT_NOT_FOUND, 422
 * PAGE_OUT_OF_RANGE) and, once the page size is known, the rectangle must lie
 * on the page (422 RECT_OUTSIDE_PAGE). No text matching, so no extraction wait.
 */
async function givenRect(services: Pick<CardCreateDeps, 'documents' | 'pageCache'>, bookmd5: string, page: number, rect: { x: number; y: number; width: number; height: number }) {
  const row = services.documents.get(bookmd5);
  if (page > row.page_count) throw invalidInput(`Page ${page} is beyond this ${row.page_count}-page document.`, { page, pageCount: row.page_count }, 'PAGE_OUT_OF_RANGE');
  const size = await services.pageCache.pageSize(bookmd5, page); // the table only: no extraction wait
  // Half a point of slack: a selection's edge may round past the page's.
  if (size?.width && size.height && (rect.x + rect.width > size.width + 0.5 || rect.y + rect.height > size.height + 0.5)) {
    throw invalidInput(`excerpt.rect ${JSON.stringify(rect)} does not lie on page ${page} (${size.width} × ${size.height} points, top-left origin). Nothing was changed.`, { rect, pageSize: { width: size.width, height: size.height } }, 'RECT_OUTSIDE_PAGE');
  }
  return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
}

/**
 * Creates one card under `parentNoteId` (default: the set's root card). An
 * excerpt is anchored to its rectangle on the page with the matcher of
 * POST /documents/{id}/locate (waiting for the page's extraction like locate
 * does); an excerpt that cannot be found still becomes a card, with the page
 * but no rectangle, and a warning says why. An excerpt with its own `rect`
 * (the reader's selection) is anchored to that rectangle instead. Everything
 * is written in one transaction with one operation-log row, then read back.
 */
export async function createCard(services: CardCreateDeps, input: CreateCardInput) {
  const { store } = services;
  assertStudySet(store, input.topicid);
  const title = input.title?.trim() ?? '';
  const text = input.text ?? '';
  const hasText = text.trim() !== '';
  if (!title && !hasText && !input.excerpt) {
    throw invalidInput('A card needs at least one of title, text or excerpt. Nothing was changed.', { fields: ['title', 'text', 'excerpt'] });
  }
  const parentId = input.parentNoteId ?? store.get<{ r: string | null }>('SELECT root_note_id AS r FROM topics WHERE topicid = ?', [input.topicid])?.r;
  if (!parentId) throw new BridgeError('ROOT_CARD_MISSING', 422, `Study set ${input.topicid} has no root card; pass parentNoteId.`, { topicid: input.topicid });
  parentIn(store, input.topicid, parentId);

  const warnings: CreateCardWarning[] = [];
  let source: { bookmd5: string; page: number; rect: { x: number; y: number; width: number; height: number } | null; rects?: { x: number; y: number; width: number; height: number }[] } | null = null;
  if (input.excerpt) {
    const ex = input.excerpt;
    if (!ex.text.trim()) throw invalidInput('excerpt.text must not be blank.', { field: 'excerpt.text' });
    if (ex.rect) source = { bookmd5: ex.bookmd5, page: ex.page, rect: await givenRect(services, ex.bookmd5, ex.page, ex.rect) };
  }
  if (input.excerpt && !source) {
    const ex = input.excerpt;
    // 404 DOCUMENT_NOT_FOUND, 422 PAGE_OUT_OF_RANGE, 409 EXTRACTION_IN_PROGRESS come from locate itself, before anything is written.
    const loc = await services.documentReader.locate(ex.bookmd5, ex.page, ex.text, false, services.ui);
    source = { bookmd5: ex.bookmd5, page: ex.page, rect: loc.found && loc.rect ? loc.rect : null, ...(loc.found && loc.rects ? { rects: loc.rects } : {}) };
    if (!source.rect) {
      const reason = loc.status === 'page_unreadable' ? 'page_unreadable' : 'no_match';
      warnings.push({
        code: 'EXCERPT_NOT_ANCHORED',
        reason,
        message:
          reason === 'page_unreadable'
            ? `Page ${ex.page} has no readable text, so the excerpt could not be placed; the card keeps the page without a rectangle.`
            : `The excerpt was not found on page ${ex.page} (best score ${loc.score.toFixed(2)}); the card keeps the page without a rectangle. Quote the page verbatim (GET /documents/{id}/pages) to anchor it.`,
      });
    }
  }

  const body = input.excerpt ? input.excerpt.text : hasText ? text : undefined;
  const cardTitle = title || cutTitle(body ?? '');
  const noteid = newId();
  const now = nowIso();
  await store.write((tx) => {
    parentIn(tx, input.topicid, parentId); // still there when the write runs
    insertNote(tx, {
      noteid,
      topicid: input.topicid,
      parentId,
      title: cardTitle,
      text: body,
      excerpt: !!input.excerpt,
      source,
      colorIndex: input.colorIndex ?? null,
      fillIndex: input.fillIndex ?? null,
      now,
    });
    // With an excerpt as the body, the text becomes the first comment.
    if (input.excerpt && hasText) {
      tx.run(`INSERT INTO note_texts(noteid, idx, text, excerpt, kind) VALUES (?, 1, ?, 0, 'text')`, [noteid, text]);
      reindexNote(tx, noteid);
    }
    recordOperation(tx, { topicid: input.topicid, kind: 'create', actor: input.actor, noteIds: [noteid], now });
  });

  // persisted only when an independent read agrees with what was asked.
  const back = store.get<NoteRow>('SELECT * FROM notes WHERE noteid = ? AND hidden = 0', [noteid]);
  const bodyBack = store.get<{ text: string; excerpt: number }>('SELECT text, excerpt FROM note_texts WHERE noteid = ? AND idx = 0', [noteid]);
  if (!back || back.parent_id !== parentId || back.title !== cardTitle || (bodyBack?.text ?? undefined) !== body) {
    throw saveFailed(`Card ${noteid} did not read back as written; treat it as not created and check GET /study-sets/${input.topicid}/tree.`, { noteid });
  }
  const sourceAnchor: SourceAnchor = sourceAnchorOf(back, bodyBack?.excerpt === 1);
  return {
    noteid,
    topicid: input.topicid,
    parentNoteId: parentId,
    title: cardTitle,
    persisted: true,
    sourceAnchor,
    ...(warnings.length ? { warnings } : {}),
  };
}
