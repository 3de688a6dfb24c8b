import { existsSync, statSync } from 'node:fs';
import { BridgeError, notFound } from '../../errors';
import type { Store } from '../../ground/store/store';
import type { PdfSource } from '../../ground/pdf/extractionPool';
import { insideLibrary } from './libraryPaths';
import { extractionErrorCode } from './extractionFailure';
import { md5OfFile } from './fileMd5';

/** First page number of virtual blank pages; never a PDF page. */
export const VIRTUAL_PAGE_BASE = 66000;

export interface DocumentRow {
  bookmd5: string;
  filename: string;
  folder: string;
  size: number;
  page_count: number;
  extraction_state: string;
  extracted_pages: number;
  extraction_error: string | null;
  outline_original: string | null;
  outline_ai: string | null;
  toc_display: string;
  added_at: string;
  modified_at: string;
}

export const isBookmd5 = (s: string) => /^[0-9a-f]{32}$/.test(s);

/** 422 DOCUMENT_FILE_MISSING: the document's PDF is not in the library folder. `what` says what that prevents. */
export const documentFileMissing = (bookmd5: string, what: string) =>
  new BridgeError(
    'DOCUMENT_FILE_MISSING',
    422,
    `The PDF of document ${bookmd5} is missing from the library folder (sourceState missing_file); ${what}.`,
    { bookmd5, sourceState: 'missing_file' },
  );

/**
 * The library's documents as rows and files: a row in the store per document,
 * its PDF under <dataDir>/library/<folder>/<filename>, and the checks of that
 * file (present, md5). Extraction is extractionScheduler.ts, page reads
 * pageReader.ts, upload and delete documentUpload.ts / documentDelete.ts.
 */
export class DocumentCatalogue {
  constructor(
    readonly store: Store,
    private readonly libraryDir: string,
  ) {}

  filePath(row: Pick<DocumentRow, 'folder' | 'filename'>): string {
    return insideLibrary(this.libraryDir, row.folder, row.filename);
  }

  source(row: DocumentRow): PdfSource {
    return { key: row.bookmd5, path: this.filePath(row) };
  }

  find(bookmd5: string): DocumentRow | undefined {
    return this.store.get<DocumentRow>('SELECT * FROM documents WHERE bookmd5 = ?', [bookmd5]);
  }

  get(bookmd5: string): DocumentRow {
    const row = isBookmd5(bookmd5) ? this.find(bookmd5) : undefined;
    if (!row)
      throw notFound(
        'DOCUMENT_NOT_FOUND',
        `No document ${bookmd5} in the library. GET /search?scope=documents finds a bookmd5.`,
      );
    return row;
  }

  /** 422 DOCUMENT_FILE_MISSING when the PDF is not in the library folder (nothing to read the document from). */
  assertFile(row: DocumentRow): void {
    if (existsSync(this.filePath(row))) return;
    throw documentFileMissing(row.bookmd5, 'restore the file to read it');
  }

  progress(row: DocumentRow) {
    return {
      state: row.extraction_state,
      extractedPages: row.extracted_pages,
      pageCount: row.page_count,
      ...(row.extraction_error ? { error: row.extraction_error, ...extractionErrorCode(row.extraction_error) } : {}),
    };
  }

  // ── file state ──

  async syncStatus(bookmd5: string, verifyHash: boolean) {
    const row = this.get(bookmd5);
    const file = this.filePath(row);
    const exists = existsSync(file);
    const hasLearningData = !!this.store.get('SELECT 1 FROM notes WHERE source_bookmd5 = ?', [bookmd5]);
    const base = {
      bookmd5,
      path: row.folder ? `${row.folder}/${row.filename}` : row.filename,
      fileExists: exists,
      expectedByCurrentSettings: true,
      hasLearningData,
      remainingUnverifiedMaterializedMappingCount: exists && !verifyHash ? 1 : 0,
    };
    if (!exists) return { ...base, state: 'missing_file', hashVerification: 'not_possible' };
    const size = statSync(file).size;
    if (!verifyHash) return { ...base, state: 'available_local_only', size, hashVerification: 'not_requested' };
    const actual = await md5OfFile(file);
    return actual === bookmd5
      ? { ...base, state: 'available_local_only', size, hashVerification: 'verified' }
      : { ...base, state: 'verified_mismatch', size, hashVerification: 'mismatch', actualMd5: actual };
  }
}
