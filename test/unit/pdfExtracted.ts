/**
 * One extraction of each corpus book per test run, shared by the PDF unit
 * tests (extracting asymptote.pdf and OCR of the scanned pages are the heavy
 * parts of the suite).
 */
import { ExtractionPool } from '../../src/server/ground/pdf/extractionPool';
import type { DocumentInfo, PageData } from '../../src/server/ground/pdf/pdfTypes';
import { corpusFile } from './pdfCorpus';

export interface ExtractedBook {
  file: string;
  info: DocumentInfo;
  /** pages[0] is page 1. */
  pages: PageData[];
}

let pool: ExtractionPool | undefined;
const books = new Map<string, Promise<ExtractedBook>>();

export function sharedPool(): ExtractionPool {
  pool ??= new ExtractionPool({ size: 2, idleMs: 2000 });
  return pool;
}

export function extracted(name: string): Promise<ExtractedBook> {
  let book = books.get(name);
  if (!book) {
    const file = corpusFile(name);
    book = (async () => {
      const pages: PageData[] = [];
      const h = sharedPool().extractDocument({ key: name, path: file }, { onPage: (p) => pages.push(p) });
      const info = await h.info;
      await h.done;
      pages.sort((a, b) => a.page - b.page);
      return { file, info, pages };
    })();
    books.set(name, book);
  }
  return book;
}
