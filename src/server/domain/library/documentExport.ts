import { assertStudySet } from './studySets';
import * as path from 'node:path';
import { invalidInput } from '../../errors';
import { asNoSpace } from '../../ground/store/diskSpace';
import type { Highlight } from '../../ground/pdf/flatExport';
import type { ExtractionPool } from '../../ground/pdf/extractionPool';
import type { DocumentCatalogue } from './documentCatalogue';
import type { PageReader } from './pageReader';
import type { ExportSlot } from './exportSlot';

/** What a document export reads and holds. */
export interface DocumentExportDeps {
  documents: DocumentCatalogue;
  pages: Pick<PageReader, 'pageSize'>;
  pool: Pick<ExtractionPool, 'exportFlat'>;
  exportSlot: ExportSlot;
}

const PALETTE: [number, number, number][] = [
  [1, 0.86, 0.2],
  [0.55, 0.85, 0.45],
  [0.45, 0.7, 1],
  [1, 0.55, 0.55],
  [0.8, 0.6, 1],
  [1, 0.7, 0.35],
  [0.5, 0.9, 0.9],
  [0.85, 0.85, 0.85],
  [0.95, 0.95, 0.5],
  [0.6, 0.95, 0.6],
  [0.6, 0.8, 1],
  [1, 0.7, 0.8],
  [0.9, 0.75, 1],
  [1, 0.8, 0.6],
  [0.7, 1, 1],
  [0.75, 0.75, 0.75],
];

/** Rect of a card's excerpt: {x,y,width,height} in page points, or normalised (all ≤ 1) to the page size. */
function toPoints(json: string, page: { width: number; height: number } | undefined): Highlight['rect'] | undefined {
  try {
    const r = JSON.parse(json) as { x: number; y: number; width?: number; height?: number; w?: number; h?: number };
    const w = r.width ?? r.w ?? 0;
    const h = r.height ?? r.h ?? 0;
    if (![r.x, r.y, w, h].every(Number.isFinite) || w <= 0 || h <= 0) return undefined;
    if (page && r.x <= 1 && r.y <= 1 && w <= 1 && h <= 1)
      return { x: r.x * page.width, y: r.y * page.height, w: w * page.width, h: h * page.height };
    return { x: r.x, y: r.y, w, h };
  } catch {
    return undefined;
  }
}

const safeStem = (name: string) =>
  name
    .replace(/\.pdf$/i, '')
    .replace(/[^\p{L}\p{N}._ -]+/gu, '_')
    .slice(0, 80) || 'document';

/**
 * Flat PDF of a document with the highlights of one study set's cards drawn
 * on the pages, into <exportFolder>/DocumentExports/. One export at a time.
 */
export async function exportDocument(
  deps: DocumentExportDeps,
  exportFolder: string,
  id: string,
  topicid: string,
  selected: number[] | undefined,
) {
  const docs = deps.documents;
  const row = docs.get(id);
  assertStudySet(docs.store, topicid);
  if (selected) {
    const bad = selected.find((p) => p > row.page_count);
    if (bad !== undefined)
      throw invalidInput(
        `selectedPageNos has page ${bad}, beyond this ${row.page_count}-page document.`,
        { page: bad },
        'PAGE_OUT_OF_RANGE',
      );
  }
  const pages = selected
    ? [...new Set(selected)].sort((a, b) => a - b)
    : Array.from({ length: row.page_count }, (_, i) => i + 1);
  return deps.exportSlot.run(async () => {
    const cards = docs.store.all<{ source_page: number; source_rect: string; color_index: number | null }>(
      'SELECT source_page, source_rect, color_index FROM notes WHERE topicid = ? AND source_bookmd5 = ? AND hidden = 0 AND source_rect IS NOT NULL AND source_page IS NOT NULL',
      [topicid, id],
    );
    const wanted = new Set(pages);
    const sizes = new Map<number, { width: number; height: number } | undefined>();
    for (const c of cards)
      if (wanted.has(c.source_page) && !sizes.has(c.source_page))
        sizes.set(c.source_page, await deps.pages.pageSize(id, c.source_page));
    const highlights: Highlight[] = [];
    for (const c of cards) {
      if (!wanted.has(c.source_page)) continue;
      const rect = toPoints(c.source_rect, sizes.get(c.source_page));
      if (rect) highlights.push({ page: c.source_page, rect, color: PALETTE[(c.color_index ?? 0) & 15] });
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const fileName = `${safeStem(row.filename)}-${stamp}.pdf`;
    const outPath = path.join(exportFolder, 'DocumentExports', fileName);
    const r = await deps.pool.exportFlat(docs.source(row), pages, highlights, outPath).catch((e) => {
      throw asNoSpace(e, 'The export', path.dirname(outPath));
    });
    return {
      bookmd5: id,
      topicid,
      exported: true,
      fileName,
      path: outPath,
      folder: 'DocumentExports',
      pageCount: r.pageCount,
      bytes: r.bytes,
      highlightCount: highlights.length,
      selectedPageNos: selected ? pages : undefined,
    };
  });
}
