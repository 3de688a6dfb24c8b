import type { PageReader, StoredPage } from '../library/pageReader';
import { layoutBlocks } from '../../ground/pdf/layoutBlocks';
import { AnchorIndex, type AnchorRect, type AnchorResult } from '../../ground/text/anchorIndex';
import type { SectionRange } from './excerptPlace';

export interface SourceBlock {
  id: string;
  page: number;
  role: string;
  text: string;
  rect: AnchorRect;
}

/** `b_<page>_<index>`: the index is the one `GET /documents/{id}/pages?blocks=1` shows. */
export const blockId = (page: number, index: number) => `b_${page}_${index}`;

/** Layout blocks of a stored page, as source.json lists them. */
export function pageBlocks(p: StoredPage): SourceBlock[] {
  if (p.ocr === 2) return [];
  return layoutBlocks(p.items, p)
    .filter((b) => b.text.trim())
    .map((b) => ({
      id: blockId(p.page, b.index),
      page: p.page,
      role: b.label,
      text: b.text,
      rect: { x: b.rect.x, y: b.rect.y, width: b.rect.w, height: b.rect.h },
    }));
}

/** Excerpt anchors kept per bundle; past this many the memo starts over. */
const MAX_MEMO = 8192;

/**
 * What submit and check match result.md against: the stored text of the
 * bundle's pages (never the editable source.json) and, in block mode, their
 * blocks. Built once per bundle and cached (pages are immutable per bookmd5).
 */
export class BundleSource {
  readonly index: AnchorIndex;
  private blocksById: Map<string, SourceBlock> | undefined;
  readonly pageSet: Set<number>;
  /** Check runs on every edit of result.md and submit follows it: most excerpts were anchored by the previous call. */
  private readonly anchors = new Map<string, Readonly<AnchorResult>>();

  /**
   * `sections`: the book's outline entries as folded title keys and page
   * ranges, by which an excerpt that matches on several pages is placed.
   */
  constructor(
    private readonly pages: StoredPage[],
    readonly sections: readonly { key: string; range: SectionRange }[] = [],
  ) {
    this.index = new AnchorIndex(pages);
    this.pageSet = new Set(pages.map((p) => p.page));
  }

  /** The anchor of an excerpt (the pages never change, so an excerpt's anchor never does either). */
  anchor(text: string): Readonly<AnchorResult> {
    let r = this.anchors.get(text);
    if (!r) {
      r = this.index.anchor(text);
      if (this.anchors.size >= MAX_MEMO) this.anchors.clear();
      this.anchors.set(text, r);
    }
    return r;
  }

  block(id: string): SourceBlock | undefined {
    if (!this.blocksById) {
      this.blocksById = new Map();
      for (const p of this.pages) for (const b of pageBlocks(p)) this.blocksById.set(b.id, b);
    }
    return this.blocksById.get(id);
  }
}

/** The stored pages of a bundle, in the asked order; a page the cache lacks reads as an empty unreadable page. */
export async function readBundlePages(
  reader: Pick<PageReader, 'storedPages'>,
  bookmd5: string,
  pages: number[],
): Promise<StoredPage[]> {
  const got = new Map((await reader.storedPages(bookmd5, pages[0], pages[pages.length - 1])).map((p) => [p.page, p]));
  return pages.map((page) => got.get(page) ?? { page, text: '', items: [], width: 0, height: 0, ocr: 2 });
}
