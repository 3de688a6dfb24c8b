import { AnchorIndex } from '../../ground/text/anchorIndex';
import type { DocumentRow } from './documentCatalogue';
import type { PageReader } from './pageReader';

/** Books whose page index is kept (locate and card creation of one book come in runs). */
const KEPT = 2;
/** Longer books are not indexed whole per locate: their `alsoOn` is not answered. */
const MAX_INDEXED_PAGES = 1500;

/**
 * Where else in a book a quote stands: the matcher of bundle anchoring over
 * all the book's stored pages, so locate and card creation can say that a
 * quote found on the asked page also stands on others (or that it stands on
 * several but not that one). Only for a document extracted to the end.
 */
export class BookAnchors {
  private readonly indexes = new Map<string, Promise<AnchorIndex>>();

  constructor(private readonly pages: Pick<PageReader, 'storedPages'>) {}

  /** The pages the quote is anchored on across the book, ascending; undefined when the book is not indexed. */
  async pagesOf(row: DocumentRow, text: string): Promise<number[] | undefined> {
    if (row.extraction_state !== 'ready' || row.page_count > MAX_INDEXED_PAGES) return undefined;
    const index = await this.indexOf(row);
    const r = index.anchor(text);
    if (!r.anchored || r.page === undefined) return [];
    return [r.page, ...(r.others ?? []).map((o) => o.page!)].sort((a, b) => a - b);
  }

  private indexOf(row: DocumentRow): Promise<AnchorIndex> {
    let p = this.indexes.get(row.bookmd5);
    if (p) {
      // Most recently used last.
      this.indexes.delete(row.bookmd5);
      this.indexes.set(row.bookmd5, p);
      return p;
    }
    p = this.pages.storedPages(row.bookmd5, 1, row.page_count).then((pages) => new AnchorIndex(pages));
    p.catch(() => this.indexes.delete(row.bookmd5));
    this.indexes.set(row.bookmd5, p);
    if (this.indexes.size > KEPT) this.indexes.delete(this.indexes.keys().next().value!);
    return p;
  }
}
