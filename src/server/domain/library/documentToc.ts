import { conflict, invalidInput } from '../../errors';
import type { OutlineSegment } from '../../ground/pdf/pdfTypes';
import type { DocumentCatalogue } from './documentCatalogue';
import { nowIso } from './ids';

export interface TocEntryInput {
  title: string;
  page: number;
  level: number;
  anchor?: unknown;
}

export interface TocPlan {
  segments: (OutlineSegment & { anchor?: unknown })[];
  adjustedLevels: { index: number; from: number; to: number }[];
}

/**
 * Checks a TOC for the AI slot: pages within the document and never going
 * backwards (equal neighbours are allowed: two headings on one page), else
 * 422 for the whole batch; levels clamped to 0..7 and reported.
 */
export function planToc(entries: TocEntryInput[], pageCount: number): TocPlan {
  const adjustedLevels: TocPlan['adjustedLevels'] = [];
  entries.forEach((e, i) => {
    if (e.page > pageCount)
      throw invalidInput(
        `entries[${i}].page ${e.page} is beyond this ${pageCount}-page document; nothing was written.`,
        { index: i, page: e.page, pageCount },
        'TOC_PAGE_OUT_OF_RANGE',
      );
    if (i > 0 && e.page < entries[i - 1].page) {
      throw invalidInput(
        `Pages must increase: entries[${i}].page ${e.page} comes after page ${entries[i - 1].page}; the whole batch was refused.`,
        { index: i, page: e.page, previousPage: entries[i - 1].page },
        'TOC_PAGES_NOT_INCREASING',
      );
    }
  });
  const segments = entries.map((e, index) => {
    const level = Math.min(7, Math.max(0, e.level));
    if (level !== e.level) adjustedLevels.push({ index, from: e.level, to: level });
    return { startPage: e.page, title: e.title, level, ...(e.anchor !== undefined ? { anchor: e.anchor } : {}) };
  });
  return { segments, adjustedLevels };
}

/** Writes the AI slot and displays it; or switches the display between the slots. */
export async function writeToc(
  docs: DocumentCatalogue,
  id: string,
  body: { entries?: TocEntryInput[]; useOriginal?: boolean; useAI?: boolean },
) {
  const row = docs.get(id);
  const now = nowIso();
  if (body.useOriginal) {
    await docs.store.write((tx) =>
      tx.run(`UPDATE documents SET toc_display = 'original', modified_at = ? WHERE bookmd5 = ?`, [now, id]),
    );
    return { bookmd5: id, displayed: 'original', persisted: true };
  }
  if (body.useAI) {
    if (!row.outline_ai)
      throw conflict('NO_AI_TOC', 'This document has no AI table of contents yet; write one with entries first.');
    await docs.store.write((tx) =>
      tx.run(`UPDATE documents SET toc_display = 'ai', modified_at = ? WHERE bookmd5 = ?`, [now, id]),
    );
    return { bookmd5: id, displayed: 'ai', persisted: true };
  }
  const plan = planToc(body.entries ?? [], row.page_count);
  await docs.store.write((tx) =>
    tx.run(`UPDATE documents SET outline_ai = ?, toc_display = 'ai', modified_at = ? WHERE bookmd5 = ?`, [
      JSON.stringify(plan.segments),
      now,
      id,
    ]),
  );
  return {
    bookmd5: id,
    displayed: 'ai',
    written: plan.segments.length,
    adjustedLevels: plan.adjustedLevels,
    pageCount: row.page_count,
    persisted: true,
  };
}

/** Exactly one of entries / useOriginal / useAI. */
export function checkTocMode(body: { entries?: unknown[]; useOriginal?: boolean; useAI?: boolean }): void {
  const modes = [body.entries !== undefined, !!body.useOriginal, !!body.useAI].filter(Boolean).length;
  if (modes !== 1)
    throw invalidInput(
      'Send exactly one of entries[], useOriginal:true or useAI:true.',
      undefined,
      'INVALID_TOC_REQUEST',
    );
}
