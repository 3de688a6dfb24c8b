import { invalidInput } from '../../errors';
import type { DocumentReader } from '../library/documentReader';
import type { UiHost } from '../ui/uiHost';

/** A warning of card creation: the excerpt found no rectangle, or stands on other pages as well. */
export type CreateCardWarning =
  | {
      code: 'EXCERPT_NOT_ANCHORED';
      /** no_match: the text is not on that page; page_unreadable: the page has no readable text layer (scan without OCR text). */
      reason: 'no_match' | 'page_unreadable';
      message: string;
    }
  | {
      /** Not found near the reader's selection: anchored to the selection's box as the reader drew it. */
      code: 'EXCERPT_SELECTION_BOX';
      reason: 'no_match' | 'page_unreadable';
      message: string;
    }
  | {
      /** Anchored on the given page, which decided among the pages the text stands on (alsoOn: the others). */
      code: 'EXCERPT_AMBIGUOUS';
      alsoOn: number[];
      message: string;
    };

type Box = { x: number; y: number; width: number; height: number };

export interface LocatedExcerpt {
  source: { bookmd5: string; page: number; rect: Box | null; rects?: Box[] };
  warnings: CreateCardWarning[];
  /** The other pages the excerpt stands on, when it stands on several. */
  alsoOn?: number[];
}

const pageList = (pages: number[]) =>
  pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.slice(0, -1).join(', ')} and ${pages[pages.length - 1]}`;

/**
 * Anchors an excerpt with the matcher of POST /documents/{id}/locate. With
 * `near` (the reader's selection box) the page is the person's and the box
 * picks the place on it; text the matcher cannot find there is anchored to
 * the box itself, and a warning says the rectangle is the selection's (and
 * names the pages the text does stand on, alsoOn). The
 * given page is the hint: the text found there is anchored there, and when it
 * also stands on other pages the answer says so. Not found there but standing
 * on several other pages, nothing tells which: 422 AMBIGUOUS_EXCERPT, the
 * caller sends the page it is quoted from. Not found at all: the card keeps
 * the page without a rectangle, and a warning says why.
 */
export async function locateExcerpt(
  services: { documentReader: Pick<DocumentReader, 'locate'>; ui: UiHost },
  ex: { bookmd5: string; page: number; text: string; near?: Box },
): Promise<LocatedExcerpt> {
  // 404 DOCUMENT_NOT_FOUND, 422 PAGE_OUT_OF_RANGE, 409 EXTRACTION_IN_PROGRESS come from locate itself, before anything is written.
  const loc = await services.documentReader.locate(ex.bookmd5, ex.page, ex.text, false, services.ui, ex.near);
  const alsoOn = loc.alsoOn ?? [];
  if (ex.near && !(loc.found && loc.rect)) return selectionBox(ex.page, ex.bookmd5, ex.near, loc, alsoOn);
  if (!loc.found && alsoOn.length >= 2)
    throw invalidInput(
      `The excerpt is not on page ${ex.page}, and it stands on ${pageList(alsoOn)}: send excerpt.page, the page it is quoted from. Nothing was changed.`,
      { page: ex.page, alsoOn },
      'AMBIGUOUS_EXCERPT',
    );
  const source = {
    bookmd5: ex.bookmd5,
    page: ex.page,
    rect: loc.found && loc.rect ? loc.rect : null,
    ...(loc.found && loc.rects ? { rects: loc.rects } : {}),
  };
  const warnings: CreateCardWarning[] = [];
  if (!source.rect) {
    const reason = loc.status === 'page_unreadable' ? 'page_unreadable' : 'no_match';
    const elsewhere = alsoOn.length ? ` It stands on ${pageList(alsoOn)}: create the card with that page.` : '';
    warnings.push({
      code: 'EXCERPT_NOT_ANCHORED',
      reason,
      message:
        reason === 'page_unreadable'
          ? `Page ${ex.page} has no readable text, so the excerpt could not be placed; the card keeps the page without a rectangle.${elsewhere}`
          : `The excerpt was not found on page ${ex.page} (best score ${loc.score.toFixed(2)}); the card keeps the page without a rectangle. Quote the page verbatim (GET /documents/{id}/pages) to anchor it.${elsewhere}`,
    });
    return { source, warnings };
  }
  if (!loc.ambiguous) return { source, warnings };
  warnings.push({
    code: 'EXCERPT_AMBIGUOUS',
    alsoOn,
    message: `The excerpt stands on page ${ex.page} and also on ${pageList(alsoOn)}; it was anchored on page ${ex.page}, the page given. Check it is the one meant.`,
  });
  return { source, warnings, alsoOn };
}

/** The reader's selection box as the anchor: the text is not on the page as the bridge reads it. */
function selectionBox(
  page: number,
  bookmd5: string,
  near: Box,
  loc: { status: string; score: number },
  alsoOn: number[],
): LocatedExcerpt {
  const reason = loc.status === 'page_unreadable' ? 'page_unreadable' : 'no_match';
  const why =
    reason === 'page_unreadable'
      ? `page ${page} has no readable text`
      : `the selected text was not found near it on page ${page} (best score ${loc.score.toFixed(2)})`;
  return {
    source: { bookmd5, page, rect: { x: near.x, y: near.y, width: near.width, height: near.height } },
    warnings: [
      {
        code: 'EXCERPT_SELECTION_BOX',
        reason,
        message: `The card is anchored to the selection's box as the reader drew it, not to the glyphs: ${why}.${alsoOn.length ? ` The text stands on ${pageList(alsoOn)}.` : ''}`,
      },
    ],
    ...(alsoOn.length ? { alsoOn } : {}),
  };
}
