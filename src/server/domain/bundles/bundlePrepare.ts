import { invalidInput } from '../../errors';
import { VIRTUAL_PAGE_BASE, type DocumentRow } from '../library/documentCatalogue';
import { ANCHOR_MODES, PRESETS } from './vocabulary';

/** Actual pages (not the span) one prepare may cover. */
export const MAX_BUNDLE_PAGES = 60;
/** Above this many pages a prepare must be asynchronous. */
export const MAX_SYNC_PAGES = 10;

export interface PrepareBody {
  topicid: string;
  bookmd5: string;
  segments: { startPage: number; endPage?: number; title?: string }[];
  preset?: string;
  anchorMode?: string;
  title?: string;
  cardStyle?: { defaultFillIndex?: number };
  async?: boolean;
}

export interface PrepareRequest {
  topicid: string;
  bookmd5: string;
  segments: { startPage: number; endPage: number; title?: string }[];
  pages: number[];
  preset: string;
  anchorMode: string;
  title: string;
  defaultFillIndex: number | null;
  async: boolean;
  warnings: string[];
}

/** Pairings that work (docs/CONTRACT-CHOICES.md, "Agents' vocabulary"); anything else degrades silently in the reference app, so we say so. */
function pairingWarning(preset: string, anchorMode: string): string | undefined {
  if (preset === 'exam-general' && anchorMode !== 'block')
    return 'exam-general pairs questions and answers by block role and needs anchorMode "block": discard this bundle and prepare again with anchorMode:"block".';
  if (preset === 'dictionary' && anchorMode === 'block')
    return 'dictionary expects anchorMode "page_text" (terms are quoted as excerpts): discard and prepare again with anchorMode:"page_text".';
  if (preset === 'book-breakdown' && anchorMode === 'block')
    return 'book-breakdown is meant for prose with anchorMode "page_text"; block mode suits formula-dense, exam or scanned pages (then source-structure or exam-general). If the pages are prose, discard and prepare again.';
  return undefined;
}

/**
 * Checks a prepare request completely before anything starts (404/422 at
 * once): presets and modes against the whitelist, pages within the document,
 * segments merged and sorted, the page and async limits.
 */
export function validatePrepare(body: PrepareBody, doc: DocumentRow): PrepareRequest {
  const { preset, anchorMode, fill } = checkStyle(body);
  const merged = checkSegments(body.segments, doc);
  const pages = merged.flatMap((s) => Array.from({ length: s.endPage - s.startPage + 1 }, (_, i) => s.startPage + i));
  const async = body.async === true;
  checkPageLimits(pages.length, async);
  const warnings: string[] = [];
  const pw = pairingWarning(preset, anchorMode);
  if (pw) warnings.push(pw);
  const title =
    body.title?.trim() ||
    merged
      .map((s) => s.title)
      .filter(Boolean)
      .join(' + ') ||
    `${doc.filename.replace(/\.pdf$/i, '')} p. ${merged.map((s) => (s.startPage === s.endPage ? s.startPage : `${s.startPage}–${s.endPage}`)).join(', ')}`;
  return {
    topicid: body.topicid,
    bookmd5: body.bookmd5,
    segments: merged,
    pages,
    preset,
    anchorMode,
    title,
    defaultFillIndex: fill ?? null,
    async,
    warnings,
  };
}

/** The preset, anchor mode and default fill, each against its whitelist. */
function checkStyle(body: PrepareBody) {
  const preset = body.preset ?? 'book-breakdown';
  if (!(PRESETS as readonly string[]).includes(preset)) {
    throw invalidInput(
      `preset "${preset}" is not one of ${PRESETS.join(', ')}. Nothing was prepared.`,
      { field: 'preset', validValues: [...PRESETS] },
      'INVALID_PRESET',
    );
  }
  const anchorMode = body.anchorMode ?? 'page_text';
  if (!(ANCHOR_MODES as readonly string[]).includes(anchorMode)) {
    throw invalidInput(
      `anchorMode "${anchorMode}" is not one of ${ANCHOR_MODES.join(', ')}. Probe GET /documents/{id}/pages?blocks=1 to choose.`,
      { field: 'anchorMode', validValues: [...ANCHOR_MODES] },
      'INVALID_ANCHOR_MODE',
    );
  }
  const fill = body.cardStyle?.defaultFillIndex;
  if (fill !== undefined && !(Number.isInteger(fill) && fill >= -1 && fill <= 2)) {
    throw invalidInput(
      `cardStyle.defaultFillIndex must be an integer -1..2 (2 = no fill; 0 is not "no fill"); got ${fill}.`,
      { field: 'cardStyle.defaultFillIndex', validValues: [-1, 0, 1, 2] },
      'INVALID_FILL_INDEX',
    );
  }
  return { preset, anchorMode, fill };
}

/** Each segment within the document's real pages, then all of them merged and in PDF order. */
function checkSegments(segments: PrepareBody['segments'], doc: DocumentRow): PrepareRequest['segments'] {
  if (!segments.length)
    throw invalidInput(
      'segments is empty: give at least one {startPage, endPage}.',
      { field: 'segments' },
      'INVALID_SEGMENTS',
    );
  const segs = segments.map((s, i) => {
    const endPage = s.endPage ?? s.startPage;
    if (s.startPage >= VIRTUAL_PAGE_BASE || endPage >= VIRTUAL_PAGE_BASE) {
      throw invalidInput(
        `segments[${i}] names a virtual blank page (≥ ${VIRTUAL_PAGE_BASE}); use PDF page order.`,
        { field: `segments.${i}` },
        'VIRTUAL_PAGE',
      );
    }
    if (endPage < s.startPage)
      throw invalidInput(
        `segments[${i}]: endPage ${endPage} is before startPage ${s.startPage}.`,
        { field: `segments.${i}` },
        'INVALID_RANGE',
      );
    if (endPage > doc.page_count) {
      throw invalidInput(
        `segments[${i}] ends at page ${endPage}, beyond this ${doc.page_count}-page document (PDF page order, not printed numbers).`,
        { field: `segments.${i}`, pageCount: doc.page_count },
        'PAGE_OUT_OF_RANGE',
      );
    }
    return { startPage: s.startPage, endPage, title: s.title };
  });
  // Overlapping or touching ranges merge; order is PDF order.
  segs.sort((a, b) => a.startPage - b.startPage || a.endPage - b.endPage);
  const merged: PrepareRequest['segments'] = [];
  for (const s of segs) {
    const last = merged[merged.length - 1];
    if (last && s.startPage <= last.endPage + 1) {
      last.endPage = Math.max(last.endPage, s.endPage);
      last.title ??= s.title;
    } else merged.push({ ...s });
  }
  return merged;
}

/** A bundle's page ceiling, and the smaller one a synchronous prepare has. */
function checkPageLimits(pagesTotal: number, async: boolean): void {
  if (pagesTotal > MAX_BUNDLE_PAGES) {
    throw invalidInput(
      `These segments cover ${pagesTotal} actual pages; a bundle holds at most ${MAX_BUNDLE_PAGES}. Split the work into several bundles.`,
      { pagesTotal, maxPages: MAX_BUNDLE_PAGES },
      'TOO_MANY_PAGES',
    );
  }
  if (!async && pagesTotal > MAX_SYNC_PAGES) {
    throw invalidInput(
      `${pagesTotal} pages need async:true (synchronous prepare is for at most ${MAX_SYNC_PAGES} pages); then poll GET /bundles.`,
      { pagesTotal, maxSyncPages: MAX_SYNC_PAGES },
      'ASYNC_REQUIRED',
    );
  }
}
