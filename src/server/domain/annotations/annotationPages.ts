import type { ExtractionPool, PdfSource } from '../../ground/pdf/extractionPool';
import { PdfTaskError } from '../../ground/pdf/extractionPool';
import { TOO_COMPLEX } from '../../ground/pdf/extractionBudget';
import type { PageAnnotations } from '../../ground/pdf/pdfAnnotations';

/**
 * Pages whose annotations went over the read's budget before the import
 * gives up on the rest: each costs a fresh worker and up to its time budget,
 * and a PDF with several such pages is not a reader's.
 */
export const MAX_FAILED_PAGES = 3;

const overBudget = (e: unknown): e is PdfTaskError => e instanceof PdfTaskError && e.workerCode === TOO_COMPLEX;

/**
 * Reads the pages' annotations a page at a time (`onPage`), partially when
 * it must: a page whose annotations cannot be read within the budget of an
 * annotation read is given as skipped, with why, and the pages after it are
 * read by a fresh worker; after MAX_FAILED_PAGES such pages the rest are
 * skipped in one entry. Other failures (a damaged file) reject as before.
 */
export async function readAnnotationPages(
  pool: Pick<ExtractionPool, 'annotationPages'>,
  source: PdfSource,
  pages: readonly number[],
  onPage: (p: PageAnnotations) => void,
): Promise<void> {
  let left = [...pages];
  for (let failed = 0; left.length;) {
    const read = new Set<number>();
    try {
      await pool.annotationPages(source, left, (p) => {
        read.add(p.page);
        onPage(p);
      });
      return;
    } catch (e) {
      if (!overBudget(e)) throw e;
      const [page, ...rest] = left.filter((p) => !read.has(p));
      const why = e.message.replace(/^PDF_TOO_COMPLEX: /, '');
      onPage({
        page,
        annotations: [],
        skipped: [pageSkip(page, `Its annotations could not be read safely (${why}); none of them was imported.`)],
      });
      left = rest;
      if (++failed >= MAX_FAILED_PAGES && left.length) {
        const range = left.length === 1 ? `page ${left[0]}` : `pages ${left[0]}–${left[left.length - 1]}`;
        onPage({
          page: left[0],
          annotations: [],
          skipped: [
            pageSkip(
              left[0],
              `Not read (${range}): ${failed} pages before went over the budget of an annotation read, so the rest of this PDF was left out.`,
            ),
          ],
        });
        return;
      }
    }
  }
}

const pageSkip = (page: number, reason: string) => ({ kind: 'Annotations', page, reason });
